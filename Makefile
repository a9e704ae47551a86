# Skyframe: `make run` starts the gateway, `make test` runs every check. Both install what they
# need from Debian first (root, or sudo).

SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CONFIG ?= config/skyframe.example.yaml
# What building and running the gateway needs; `make test` adds the emulators and cross compilers
# of the firmware checks, g++ (the header as C++) and systemd (systemd-analyze verify of
# config/skyframe.service): under make test a check whose tool is missing fails, it does not skip.
RUN_PACKAGES := mosquitto mosquitto-clients libmosquitto-dev libssl-dev libcoap3-dev pkg-config python3 tzdata
# `make deb` adds dpkg-dev (dpkg-shlibdeps, dpkg-parsechangelog); make test's package check also
# runs lintian, and fakeroot when it is not run as root.
DEB_PACKAGES := $(RUN_PACKAGES) dpkg-dev
TEST_PACKAGES := $(DEB_PACKAGES) lintian fakeroot curl libcoap3-bin openssl binutils g++ systemd qemu-system-arm qemu-system-misc gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-avr avr-libc simavr libsimavr-dev arduino-builder arduino-core-avr python3-venv gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf chromium fonts-dejavu-core
APT_PACKAGES ?= $(RUN_PACKAGES)

.PHONY: deps test-deps build run stop deb test bench load load-http load-coap flood-ways cluster-load abuse watches-load faults format

test-deps:
	$(MAKE) deps APT_PACKAGES="$(TEST_PACKAGES)"

deps:
	@missing=""; for package in $(APT_PACKAGES); do \
	  dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	swift build

# Builds in release, starts a local mosquitto from config/mosquitto.conf unless something already
# listens on 127.0.0.1:1883, and runs the gateway with the example configuration.
run: deps
	swift build -c release --product skyframe
	@if ! (exec 3<>/dev/tcp/127.0.0.1/1883) 2>/dev/null; then \
	  mkdir -p /tmp/skyframe-mosquitto && chmod 1777 /tmp/skyframe-mosquitto && mosquitto -c config/mosquitto.conf -d && sleep 0.5 && \
	  echo "started mosquitto on 127.0.0.1:1883 (config/mosquitto.conf)"; fi
	.build/release/skyframe run --config $(CONFIG)

# Stops the mosquitto `make run` started (config/mosquitto.conf's pid file); a broker that was
# already listening when `make run` came is not touched.
stop:
	@pid_file=/tmp/skyframe-mosquitto/mosquitto.pid; \
	if [ -s $$pid_file ] && kill "$$(cat $$pid_file)" 2>/dev/null; then \
	  echo "stopped the mosquitto make run started (pid $$(cat $$pid_file))"; rm -f $$pid_file; \
	else echo "no mosquitto started by make run is running"; fi

# The Debian package skyframe_VERSION_ARCH.deb in this folder (packaging/deb/build.sh prints its
# path last): the release build `make run` makes, then its link again with the Swift runtime linked
# in and no $$ORIGIN run path (packaging/deb/link-static.py: --static-swift-stdlib would compile
# every module a second time for a different link). make test builds it through the benchmarks'
# package in their build folder (DEB_PACKAGE_PATH=Benchmarks DEB_SCRATCH=Benchmarks/.build), so
# the benchmarks and the package share one release compile.
DEB_PACKAGE_PATH ?= .
DEB_SCRATCH ?= .build
deb:
	$(MAKE) --no-print-directory deps APT_PACKAGES="$(DEB_PACKAGES)"
	swift build --package-path $(DEB_PACKAGE_PATH) --scratch-path $(DEB_SCRATCH) -c release \
	  --product skyframe
	packaging/deb/build.sh "$$(packaging/deb/link-static.py $(DEB_SCRATCH))" .

# Every check, each one timed, by Tests/run-all.sh: it installs the test packages (make
# test-deps), makes Home Assistant's and ESPHome's virtual environments in the background beside
# the Swift build, and ends with one line per check (time, result) and the total. A failed check
# does not stop the others; a warning from our own sources or tests fails the build.
test:
	Tests/run-all.sh

bench: deps
	cd Benchmarks && swift package benchmark --no-progress --grouping metric

# Requests per second, latency and CPU with a real broker: the gateway against a C responder,
# behind a stock and a tuned mosquitto.
load: deps
	swift build -c release --product skyframe
	Benchmarks/load/run.sh

# The HTTP way in against nginx serving the same 192 bytes, with wrk, in one run.
load-http: deps
	swift build -c release --product skyframe
	cd Benchmarks/load/http-baseline && swift build -c release
	Benchmarks/load/http.sh

# The CoAP way in against libcoap's own server answering the same 192 bytes, one load generator.
load-coap: deps
	swift build -c release --product skyframe
	Benchmarks/load/coap.sh

# A flood of 50,000 requests through HTTP and then CoAP, and the MQTT devices' p99 beside it.
flood-ways: deps
	swift build -c release --product skyframe
	Benchmarks/load/flood-ways.sh

# The fleet under faults: two members, a broker with persistence killed and restarted, members
# killed, reloads, the service failing; requests lost or answered twice, latency, early pushes.
faults: deps
	swift build -c release --product skyframe
	Benchmarks/load/faults.sh

# Several gateways on one broker: requests per second, answered-twice count and upstream calls
# for 1, 2 and 3 instances in one cluster.
cluster-load: deps
	swift build -c release --product skyframe
	Benchmarks/load/cluster.sh

# Request floods: the gateway's memory, its upstream calls and a well-behaved device's latency.
abuse: deps
	swift build -c release --product skyframe
	Benchmarks/load/abuse.sh

# Retained watches (2,000 and 20,000 at random places, @60, for 150 s): the gateway's memory,
# its frames by status and its upstream calls.
watches-load: deps
	swift build -c release --product skyframe
	Benchmarks/load/watches.sh

# libFuzzer targets of the frame codec and the C header (Tests/Fuzz/run.sh), FUZZ_SECONDS each;
# `make test` runs them for 15 s each, built with -Onone. What they find stays in .build-fuzz/corpus/.
FUZZ_SECONDS ?= 600
.PHONY: fuzz
fuzz: test-deps
	Tests/Fuzz/run.sh $(FUZZ_SECONDS)

format:
	swift format -i -r Sources Tests Benchmarks/SkyframeBenchmarks Package.swift Benchmarks/Package.swift

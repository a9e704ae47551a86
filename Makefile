# Skyframe: `make run` starts the gateway, `make test` runs every check. Both install what they
# need from Debian first (root, or sudo).

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := mosquitto mosquitto-clients libmosquitto-dev pkg-config python3 binutils

.PHONY: deps build test bench format

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

test: deps
	swift build --build-tests
	swift test
	firmware-notes/test/run.sh
	firmware-notes/embedded-swift/build.sh
	cd Benchmarks && swift package benchmark thresholds check --no-progress
	@echo "checks: 4 passed, 0 failed (swift test, C decoder, Embedded Swift build, malloc thresholds)"

bench: deps
	cd Benchmarks && swift package benchmark --no-progress --grouping metric

format:
	swift format -i -r Sources Tests Benchmarks/SkyframeBenchmarks Package.swift Benchmarks/Package.swift

#!/usr/bin/env bash
# Makes the Debian package with dpkg-deb from a release binary with the Swift runtime linked in
# (`make deb` builds and links it first with link-static.py; make test's package check links the
# benchmarks' release build):
#
#   packaging/deb/build.sh BINARY OUT_DIR        -> prints OUT_DIR/skyframe_VERSION_ARCH.deb
#
# VERSION is what `BINARY --version` prints and must head packaging/deb/changelog, so a release
# without its changelog entry fails here. Depends: dpkg-shlibdeps on the binary (the system
# libraries it links; a Swift library among them fails the build), then what the gateway reads
# at run time and the postinst runs: tzdata (zone.tab, MET Norway's time zones),
# ca-certificates (HTTPS to the weather services), systemd-sysusers (the system user).
# The layout follows debhelper's (debian/control beside debian/skyframe/) because
# dpkg-shlibdeps wants it; the package itself is built by dpkg-deb alone.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ $# -ne 2 ]]; then
  sed -n '2,4p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
binary="$1"
out="$2"

version="$("$binary" --version)"
arch="$(dpkg --print-architecture)"
logged="$(dpkg-parsechangelog -l "$here/changelog" -S Version)"
if [[ "$version" != "$logged" ]]; then
  echo "build.sh: $binary is $version but packaging/deb/changelog's last entry is $logged:" \
    "add an entry for $version" >&2
  exit 1
fi
if ldd "$binary" | grep -i swift >&2; then
  echo "build.sh: $binary loads the Swift libraries above: link it with link-static.py" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/debian/skyframe"
doc="$root/usr/share/doc/skyframe"
share="$root/usr/share/skyframe"

install -D -m 0755 "$binary" "$root/usr/bin/skyframe"
# As dh_strip does (no debug symbols are shipped).
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/skyframe"

# The unit is config/skyframe.service with the package's binary and its system user (with
# DynamicUser=yes kept, systemd takes the static user and keeps the same sandbox). Bookworm's
# packages, mosquitto's among them, put units in /lib/systemd/system.
unit="$root/lib/systemd/system/skyframe.service"
mkdir -p "$(dirname "$unit")"
sed -e 's|^ExecStart=/usr/local/bin/skyframe |ExecStart=/usr/bin/skyframe |' \
  -e '/^DynamicUser=yes$/a User=skyframe' "$repo/config/skyframe.service" >"$unit"
chmod 0644 "$unit"
if ! grep -qx 'ExecStart=/usr/bin/skyframe run --config /etc/skyframe/skyframe.yaml' "$unit" ||
  ! grep -qx 'User=skyframe' "$unit"; then
  echo "build.sh: config/skyframe.service no longer has the ExecStart= or DynamicUser= line" \
    "this script rewrites" >&2
  exit 1
fi
install -D -m 0644 "$here/skyframe.sysusers" "$root/usr/lib/sysusers.d/skyframe.conf"
install -D -m 0644 "$repo/config/skyframe.example.yaml" "$root/etc/skyframe/skyframe.yaml"

# Documentation, as the repository lays it out; files over 4 kB gzipped, as dh_compress does.
(cd "$repo" && find README.md docs firmware-notes/README.md -name '*.md') | while read -r page; do
  install -D -m 0644 "$repo/$page" "$doc/$page"
done
install -D -m 0644 -t "$doc/examples" "$repo/config/mosquitto.conf" \
  "$repo/config/mosquitto-acl.conf"
install -m 0644 "$here/copyright" "$doc/copyright"
install -D -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/skyframe"
find "$doc" -type f -size +4k -exec gzip -9n {} +
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# What a device maker needs: the C header, the library as the Arduino/PlatformIO/ESP-IDF zip,
# the MicroPython module, and the specs with their golden vectors.
install -D -m 0644 -t "$share/device" "$repo/firmware-notes/skyframe_frame.h" \
  "$repo/firmware-notes/micropython/skyframe.py"
python3 "$repo/firmware-notes/skyframe/package.py" "$share/device" >/dev/null
(cd "$repo" && find schemas -type f ! -path '*/__pycache__/*') | while read -r file; do
  install -D -m 0644 "$repo/$file" "$share/$file"
done
chmod -R u=rwX,go=rX "$share"

mkdir -m 0755 "$root/DEBIAN"
printf 'Source: skyframe\n\nPackage: skyframe\nArchitecture: any\n' >"$work/debian/control"
shlibs="$(cd "$work" && dpkg-shlibdeps -O -e debian/skyframe/usr/bin/skyframe |
  sed -n 's/^shlibs:Depends=//p')"
cat >"$root/DEBIAN/control" <<EOF
Package: skyframe
Version: $version
Architecture: $arch
Maintainer: Seed 90afb1bc maintainers <maintainers@users.noreply.a-seed-90afb1bc.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $shlibs, tzdata, ca-certificates, systemd | systemd-standalone-sysusers | systemd-sysusers
Recommends: mosquitto
Section: net
Priority: optional
Description: MQTT weather gateway for small displays
 A display (ESP32, Arduino, RISC-V, a LoRaWAN node) publishes a place over
 MQTT and gets back one fixed binary frame per place: current conditions,
 12 hours and 7 days, decoded on the device by one C99 header without
 allocation. The gateway fetches from Open-Meteo, OpenWeatherMap,
 WeatherAPI.com or MET Norway, caches by cell, shares one upstream call among
 the devices of a cell and keeps to each service's budget.
 .
 The service runs as the system user skyframe with the configuration in
 /etc/skyframe/skyframe.yaml. The device library, the frame specs and their
 test vectors are in /usr/share/skyframe/.
EOF
echo /etc/skyframe/skyframe.yaml >"$root/DEBIAN/conffiles"
install -m 0755 -t "$root/DEBIAN" "$here/postinst" "$here/prerm" "$here/postrm"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
  xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/skyframe_${version}_${arch}.deb"
# The changelog's date as every file's time: the same sources make the same package.
SOURCE_DATE_EPOCH="$(dpkg-parsechangelog -l "$here/changelog" -S Timestamp)" \
  dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"

#!/usr/bin/env bash
# The Debian package `make deb` makes (packaging/deb/build.sh), checked the way an operator meets
# it, without a container:
#   1. lintian reports no error (its warnings and the overridden tags are printed);
#   2. a fresh root in a temporary folder: /etc/passwd and /etc/group as base-passwd makes them,
#      and a dpkg database holding only the packages the Depends name, as this host has them
#      installed (the installed binary runs on this host's libraries), so `dpkg -i` still
#      refuses a dependency that is missing. dpkg installs with --root and
#      --force-script-chrootless: the maintainer scripts run on this host with DPKG_ROOT set to
#      the root, and they reach nothing outside it (systemd-sysusers --root, userdel --prefix,
#      deb-systemd-helper; systemctl only where DPKG_ROOT is empty);
#   3. the installed binary prints the package's version, ldd lists no Swift library, `skyframe
#      config check` reads the installed /etc/skyframe/skyframe.yaml, `systemd-analyze verify
#      --root` passes the installed unit (and fails it in a root without the binary), the
#      system user exists and the unit is enabled;
#   4. upgrades keep an operator's edit of the conffile: a newer build with the same
#      conffile keeps it silently, one whose conffile changed too keeps it under
#      --force-confold and leaves the new one as skyframe.yaml.dpkg-dist (the newer builds are
#      this package with a higher Version, and for the second a line added to its conffile);
#   5. remove leaves the edited conffile and the user, purge leaves /etc and /var as they were
#      before the install (the shadow tools' backups /etc/passwd- and the like aside).
#
#   Tests/DebianPackage/test.sh skyframe_VERSION_ARCH.deb
#
# Needs dpkg, lintian, systemd (systemd-analyze, systemd-sysusers) and passwd (userdel);
# fakeroot when not run as root. Last line: "debian-package: N passed, M failed".
set -euo pipefail

if [[ $# -ne 1 ]]; then
  sed -n '23,24p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
deb="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tmp="$(mktemp -d)"
root="$tmp/root"
passed=0
failed=0
started=$(date +%s)

finish() {
  local status=$?
  if [[ "$status" -ne 0 && "$failed" -eq 0 ]]; then
    failed=$((failed + 1))
    echo "FAIL the test script stopped early (exit status $status)"
  fi
  rm -rf "$tmp"
  echo "debian-package: $passed passed, $failed failed ($(($(date +%s) - started)) s)"
  [[ "$failed" -eq 0 ]] || exit 1
}
trap finish EXIT

pass() {
  passed=$((passed + 1))
  echo "ok   $*"
}
fail() {
  failed=$((failed + 1))
  echo "FAIL $*"
}
# check WHAT COMMAND...: passes when COMMAND succeeds; its output is shown when it fails.
check() {
  local what="$1"
  shift
  if "$@" >"$tmp/check.out" 2>&1; then
    pass "$what"
  else
    fail "$what"
    sed 's/^/     /' "$tmp/check.out"
  fi
}

# dpkg on the root. As root it needs nothing more; otherwise fakeroot plays root's ownership.
as_root=()
[[ "$(id -u)" -eq 0 ]] || as_root=(fakeroot -- env)
dpkg_root() {
  "${as_root[@]}" dpkg --root="$root" --force-script-chrootless --log="$tmp/dpkg.log" \
    $([[ "$(id -u)" -eq 0 ]] || echo --force-not-root) "$@" </dev/null
}
query() { dpkg-query --admindir="$root/var/lib/dpkg" "$@"; }
conffile="$root/etc/skyframe/skyframe.yaml"

# snapshot: every path under the root's /etc and /var with its type, mode and content (dpkg's own
# database and log left out), for the comparison after the purge.
snapshot() {
  (cd "$root" && find etc var -path var/lib/dpkg -prune -o -name '*-' -prune -o \
    -printf '%p %y %m\n' | sort &&
    find etc var -path var/lib/dpkg -prune -o -name '*-' -prune -o -type f -print0 |
    sort -z | xargs -0 md5sum)
}

version="$(dpkg-deb -f "$deb" Version)"
echo "== the package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -f "$deb" Depends Recommends
start=$(date +%s)
# Overridden tags are shown too (O:), and with them lintian exits 2 for an overridden error: the
# verdict is its status (1: it could not run) and its E: lines.
rc=0
lintian --fail-on error --show-overrides --tag-display-limit 0 "$deb" >"$tmp/lintian.out" 2>&1 ||
  rc=$?
if [[ "$rc" -ne 1 ]] && ! grep -q '^E: ' "$tmp/lintian.out"; then
  pass "lintian: no error ($(($(date +%s) - start)) s)"
else
  fail "lintian reports an error or did not run (status $rc, $(($(date +%s) - start)) s)"
  cat "$tmp/lintian.out"
fi
grep -E '^[EWO]: ' "$tmp/lintian.out" | sed 's/^/     /' || true

echo "== a fresh root"
mkdir -p "$root"/{etc,var/lib/dpkg/info,var/lib/dpkg/updates,var/lib/dpkg/triggers}
mkdir -p "$root"/etc/systemd/system "$root"/var/lib/systemd
cp /usr/share/base-passwd/passwd.master "$root/etc/passwd"
cp /usr/share/base-passwd/group.master "$root/etc/group"
awk -F: '{ print $1 ":*:19000:0:99999:7:::" }' "$root/etc/passwd" >"$root/etc/shadow"
awk -F: '{ print $1 ":*::" }' "$root/etc/group" >"$root/etc/gshadow"
chmod 0640 "$root/etc/shadow" "$root/etc/gshadow"
# The shadow tools' lock, which every installed system has.
install -m 0600 /dev/null "$root/etc/.pwd.lock"
: >"$root/var/lib/dpkg/status"
for name in $(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g' | sort -u); do
  if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$name" 2>/dev/null)" == "ii " ]]; then
    dpkg-query -s "$name" >>"$root/var/lib/dpkg/status"
    echo >>"$root/var/lib/dpkg/status"
    : >"$root/var/lib/dpkg/info/$(dpkg-query -W -f='${binary:Package}' "$name").list"
  fi
done
before="$(snapshot)"

echo "== install"
check "dpkg -i into the root" dpkg_root -i "$deb"
check "dpkg says skyframe $version is installed" \
  test "$(query -W -f='${Status} ${Version}' skyframe)" = "install ok installed $version"
installed="$root/usr/bin/skyframe"
check "skyframe --version prints $version" test "$("$installed" --version)" = "$version"
echo "     ldd $installed:"
ldd "$installed" | sed 's/^\s*/       /'
no_swift_library() { ! ldd "$installed" | grep -i swift; }
check "ldd lists no Swift library" no_swift_library
check "skyframe config check --config /etc/skyframe/skyframe.yaml (the installed one)" \
  "$installed" config check --config "$conffile"
unit=lib/systemd/system/skyframe.service
check "the unit starts /usr/bin/skyframe as the user skyframe" \
  grep -qxF -e 'ExecStart=/usr/bin/skyframe run --config /etc/skyframe/skyframe.yaml' \
  -e 'User=skyframe' "$root/$unit"
# systemd-analyze verify --root would want a whole system in the root (sysinit.target,
# /bin/kill): the installed unit is verified against this host's, its ExecStart= pointed at the
# installed binary, and once more at a missing one, which it must report.
# verify BINARY: systemd-analyze verify of the unit with ExecStart= at BINARY; true when it
# exits 0 and says nothing about skyframe.service (what it says is printed).
verify() {
  local out status=0
  sed "s|^ExecStart=/usr/bin/skyframe |ExecStart=$1 |" "$root/$unit" >"$tmp/verify/skyframe.service"
  out="$(systemd-analyze verify --man=no "$tmp/verify/skyframe.service" 2>&1)" || status=$?
  echo "$out"
  [[ "$status" -eq 0 ]] && ! grep -q skyframe.service <<<"$out"
}
unit_passes() { verify "$installed"; }
unit_fails_without_binary() { ! verify /nonexistent/skyframe; }
mkdir "$tmp/verify"
check "systemd-analyze verify finds no problem in the installed unit" unit_passes
check "systemd-analyze verify reports it with ExecStart= at a missing binary" \
  unit_fails_without_binary
check "the system user skyframe (no home, no shell)" \
  grep -q '^skyframe:x:[0-9]*:[0-9]*:.*:/nonexistent:/usr/sbin/nologin$' "$root/etc/passwd"
check "the group skyframe" grep -q '^skyframe:x:' "$root/etc/group"
check "the unit is enabled (multi-user.target.wants)" \
  test -L "$root/etc/systemd/system/multi-user.target.wants/skyframe.service"
check "copyright, changelog.gz and the device library are where they belong" \
  test -s "$root/usr/share/doc/skyframe/copyright" -a \
  -s "$root/usr/share/doc/skyframe/changelog.gz" -a \
  -s "$root/usr/share/skyframe/device/skyframe_frame.h"

echo "== upgrades keep an edited conffile"
# repack VERSION [LINE]: this package as VERSION, LINE appended to its conffile.
repack() {
  local dir="$tmp/repack"
  rm -rf "$dir"
  dpkg-deb -R "$deb" "$dir"
  sed -i "s/^Version: .*/Version: $1/" "$dir/DEBIAN/control"
  if [[ $# -gt 1 ]]; then
    echo "$2" >>"$dir/etc/skyframe/skyframe.yaml"
    (cd "$dir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
      xargs -0 md5sum) >"$dir/DEBIAN/md5sums"
  fi
  dpkg-deb --root-owner-group -Znone --build "$dir" "$tmp/skyframe_$1.deb" >/dev/null
  rm -rf "$dir"
}
edit_kept() { grep -q '^  port: 1884 ' "$conffile"; }
sed -i 's/^  port: 1883$/  port: 1884                 # edited by the operator/' "$conffile"
check "the operator's edit (mqtt.port 1884)" edit_kept
repack "$version+upgrade1"
check "dpkg -i $version+upgrade1 (the same conffile)" dpkg_root -i "$tmp/skyframe_$version+upgrade1.deb"
kept_alone() { edit_kept && [[ ! -e "$conffile.dpkg-dist" ]]; }
check "the edit is kept, and no .dpkg-dist beside it" kept_alone
repack "$version+upgrade2" "# a line the newer package's example configuration adds"
check "dpkg -i --force-confdef --force-confold $version+upgrade2 (its conffile changed too)" \
  dpkg_root -i --force-confdef --force-confold "$tmp/skyframe_$version+upgrade2.deb"
kept_beside_new() { edit_kept && tail -n 1 "$conffile.dpkg-dist" | grep -q 'newer package'; }
check "the edit is kept, the new conffile is skyframe.yaml.dpkg-dist" kept_beside_new
check "dpkg says $version+upgrade2 is installed" \
  test "$(query -W -f='${Version}' skyframe)" = "$version+upgrade2"
check "the upgraded binary's config check passes on the edited file" \
  "$installed" config check --config "$conffile"

echo "== remove and purge"
check "dpkg -r" dpkg_root -r skyframe
check "the binary and the unit are gone" test ! -e "$installed" -a ! -e "$root/$unit"
user_kept() { grep -q '^skyframe:' "$root/etc/passwd"; }
check "the edited conffile stays until the purge" edit_kept
check "the user stays until the purge" user_kept
check "dpkg -P" dpkg_root -P skyframe
check "nothing is left in /etc or /var: both as before the install" \
  diff <(echo "$before") <(snapshot)
forgotten() { ! query -W skyframe 2>/dev/null | grep -q .; }
check "dpkg no longer knows skyframe" forgotten

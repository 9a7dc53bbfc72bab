#!/usr/bin/env bash
# shellcheck disable=SC2016  # expected messages quote YAML keys in backticks, literally
# test_profiles_lint: the `profiles` table of a matrix file (docs/profiles.md):
# a bad profile file is linted with its exact "file:line:col: message" lines
# and exit status 2; a --matrix layer replaces a built-in profile of the same
# name and adds its own; `matrix show` lists them, text and JSON.
set -u
TEST_NAME=profiles/lint
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"

bin=$B
cd "$tmp" || exit 1

cat >bad.yml <<'EOF'
schema: 1
profiles:
  - name: lab pc
    title: the lab
    windows: "11 24H2"
    build: "10.0.26x"
    visual_studio: maybe
    system32:
      - {name: msvcp140.dll, version: "14.44.35211.0"}
      - {name: MSVCP140.DLL, version: "14.40"}
      - {name: vcruntime140, version: "14.44"}
    nvidia_driver: "570"
    memory_gb: lots
    paging_file: big
    status: sourced
    vc_redsit: {x64: "14.44"}
  - name: lab-pc2
    title: t
    windows: "10"
    build: "10.0.19045"
    visual_studio: false
    system32: []
    status: measured
EOF
out=$("$bin" matrix lint bad.yml 2>/dev/null)
check_eq "bad profiles: exit status" 2 "$?"
check_eq "bad profiles: messages" 'bad.yml:3:5: the profile at line 3 is `status: sourced` but has no `sources`
bad.yml:3:11: profile name `lab pc` may only use letters, digits, '"'.', '-' and '_'"' (at most 64)
bad.yml:6:20: `build`: bad file version "10.0.26x" at column 8: unexpected "x"
bad.yml:7:20: `visual_studio` must be true or false
bad.yml:10:9: MSVCP140.DLL is listed twice in `system32` (first at line 9)
bad.yml:11:16: `name` is `vcruntime140`; expected a DLL file name such as msvcp140.dll
bad.yml:12:20: `nvidia_driver` must be a Windows NVIDIA driver version such as "572.16" (quoted), or none, not `570`
bad.yml:13:16: `memory_gb` must be a whole number of GB such as 16, not `lots`
bad.yml:14:18: `paging_file` must be a whole number of GB, or system-managed, not `big`
bad.yml:16:5: unknown key `vc_redsit` in a profile; did you mean `vc_redist`?
bad.yml:17:5: the profile at line 17 is missing `nvidia_driver` (a Windows NVIDIA driver version such as "572.16" (quoted), or none)
bad.yml:17:5: the profile at line 17 is `status: measured` but has no `evidence` (the files read)' "$(sed '$d' <<<"$out")"

# a layer: the built-in default user profile replaced, a lab machine added
cat >org.yml <<'EOF'
schema: 1
profiles:
  - name: win11-24h2-clean-vc14.44
    title: our users' Windows 11 (redistributable 14.40)
    windows: "11 24H2"
    build: "10.0.26100"
    vc_redist: {x64: "14.40.33810"}
    visual_studio: false
    system32:
      - {name: vcruntime140.dll, version: "14.40.33810.0"}
      - {name: msvcp140.dll, version: "14.40.33810.0"}
    nvidia_driver: none
    status: inferred
  - name: lab-rtx
    title: the lab's RTX machine
    windows: "11 23H2"
    build: "10.0.22631"
    visual_studio: true
    system32:
      - {name: libomp140.x86_64.dll}
    nvidia_driver: "581.57"
    paging_file: 0
    status: inferred
EOF
out=$("$bin" matrix show --json --matrix org.yml)
check_eq "layer: status" 0 "$?"
check_eq "layer: profile names in order" "win10-22h2-clean-vc14.29 win10-22h2-clean-vc14.44 win11-24h2-clean-vc14.29 win11-24h2-clean-vc14.44 win11-24h2-vc14.44-nvidia-570.65 gha-windows-2022 gha-windows-2025 lab-rtx" \
	"$(jq -r '[.profiles[].name] | join(" ")' <<<"$out")"
check_eq "layer: the built-in replaced whole" "org.yml our users' Windows 11 (redistributable 14.40) 14.40.33810 2" \
	"$(jq -r '.profiles[] | select(.name == "win11-24h2-clean-vc14.44") | "\(.file) \(.title) \(.vc_redist.x64) \(.system32 | length)"' <<<"$out")"
check_eq "layer: an added profile, a DLL without a version" 'null 581.57 0 true' \
	"$(jq -r '.profiles[] | select(.name == "lab-rtx") | "\(.system32[0].version) \(.nvidia_driver) \(.paging_file) \(.visual_studio)"' <<<"$out")"
check_eq "built-ins: every one has sources or evidence" 0 \
	"$("$bin" matrix show --json | jq '[.profiles[] | select((.sources | length) == 0 and (.evidence | length) == 0)] | length')"
out=$("$bin" matrix show)
check_eq "show: the profiles table" 1 "$(grep -c "^profiles: 7 machine profiles" <<<"$out")"
check_eq "show: the default user profile" 1 "$(grep -c "^  win11-24h2-clean-vc14.44  clean Windows 11 24H2, VC++ redistributable 14.44, no Visual Studio, no NVIDIA GPU" <<<"$out")"
tap_done

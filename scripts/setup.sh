#!/usr/bin/env bash
# Installs the Debian packages ray builds with, if any are missing. Needs root
# (or sudo). Nothing else is downloaded.
set -euo pipefail

packages=(
  g++ cmake make ninja-build pkg-config
  libzmq3-dev cppzmq-dev libmsgpack-cxx-dev libsqlite3-dev
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev
  libboost-dev libboost-filesystem-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev
  libopenblas0-serial  # libtorch's BLAS: 2-4x the reference BLAS for PPO (one thread per process)
  procps
  iproute2  # ip netns: the two-host suite, tests/integration/netns_test.cc
  openssh-server openssh-client rsync  # the cluster launcher (ray up), and its test hosts
  tmux  # ray exec/attach/submit --tmux
  libcpp-httplib-dev  # the HTTP servers: the dashboard and Tune's Client API
  chromium  # the dashboard's browser test (skipped without it)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# npm: the dashboard's chart library (uPlot) and the browser test's driver, at build
# time. Any npm will do (a Node.js from elsewhere brings its own); Debian's otherwise.
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

# Sourced by .ci/run: puts the pinned Node first on PATH before npm runs, when the machine's Node
# is another version. The binary is the registry's node-linux-<arch> package that package-lock.json
# pins (its version and integrity), unpacked into .scout/node-<version>, so no second copy of a
# version number lives anywhere else.
pinned_node_path() {
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "No pinned Node binary for $(uname -m): install Node $(node -p 'require("./package.json").engines.node') yourself." >&2; return 0 ;;
  esac
  local package="node-linux-${arch}"
  local version integrity
  version=$(node -p "require('./package-lock.json').packages['node_modules/${package}'].version")
  integrity=$(node -p "require('./package-lock.json').packages['node_modules/${package}'].integrity")
  local own
  own=$(node --version)
  if [ "$own" = "v${version}" ]; then return 0; fi

  local dir=".scout/node-${version}"
  if [ ! -x "${dir}/bin/node" ]; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "${package}@${version}" >/dev/null)
    local tarball=("$tmp"/*.tgz)
    local actual
    actual=$(node -e "process.stdout.write('sha512-' + require('node:crypto').createHash('sha512').update(require('node:fs').readFileSync(process.argv[1])).digest('base64'))" "${tarball[0]}")
    if [ "$actual" != "$integrity" ]; then
      echo "${package}@${version}: integrity ${actual} is not the lock's ${integrity}" >&2
      rm -rf "$tmp"
      return 1
    fi
    mkdir -p "$dir"
    tar -xzf "${tarball[0]}" -C "$dir" --strip-components=1
    rm -rf "$tmp"
  fi
  export PATH="$PWD/${dir}/bin:$PATH"
  echo "npm runs on the pinned Node $(node --version) (${dir}/bin/node), not this machine's ${own}."
}
pinned_node_path

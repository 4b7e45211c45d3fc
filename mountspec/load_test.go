package mountspec

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// project makes a directory tree and returns its root.
func project(t *testing.T, dirs ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	return root
}

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, FileName)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestLoadFullConfig(t *testing.T) {
	dir := project(t, "proj/src", "cache", "zones/data")
	t.Setenv("GOLEM_TEST_CACHE", filepath.Join(dir, "cache"))
	file := writeConfig(t, dir, `
sandbox:
  root: ./proj
  readonly: true
  mounts:
    - source: $GOLEM_TEST_CACHE
      target: /cache
      readonly: true
      name: cache
  zones:
    data: {path: ./zones/data, mode: rw}
  network: {allow: [proxy.golang.org, "*.example.com"]}
  limits: {memory: 512m, pids: 128, cpus: 1.5, timeout: 30s, output_bytes: 1m}
  files: {suffixes: [.md, .txt], max_file_bytes: 10k}
  image: host
  backend: auto
  require_os_sandbox: false
`)
	cfg, err := Load(file)
	require.NoError(t, err)
	s := cfg.Sandbox
	assert.Equal(t, filepath.Join(dir, "proj"), s.Root, "relative to the config file")
	assert.True(t, s.ReadOnly)
	require.Len(t, s.Mounts, 2)
	assert.Equal(t, Mount{Source: filepath.Join(dir, "cache"), Target: "/cache", ReadOnly: true, Name: "cache"}, s.Mounts[0])
	assert.Equal(t, Mount{Source: filepath.Join(dir, "zones/data"), Target: "/data", Name: "data"}, s.Mounts[1], "a zone is a named mount")
	assert.Equal(t, Network{Enabled: true, Allow: []string{"proxy.golang.org", "*.example.com"}}, s.Network)
	assert.Equal(t, Limits{Memory: 512 << 20, PIDs: 128, CPUs: 1.5, Timeout: Duration(30e9), OutputBytes: 1 << 20}, s.Limits)
	assert.Equal(t, ByteSize(10<<10), s.Files.MaxFileBytes)
	assert.False(t, s.RequireOSSandbox)
	assert.Equal(t, BackendAuto, s.Backend)
}

func TestLoadDefaults(t *testing.T) {
	dir := project(t)
	cfg, err := Load(writeConfig(t, dir, "sandbox:\n  root: .\n"))
	require.NoError(t, err)
	assert.False(t, cfg.Sandbox.Network.Enabled, "network is off by default")
	assert.True(t, cfg.Sandbox.RequireOSSandbox)
	cfg, err = Load(writeConfig(t, dir, ""))
	require.NoError(t, err)
	assert.Empty(t, cfg.Sandbox.ReadablePaths(), "no sandbox section means no file access")
	cfg, err = Load(writeConfig(t, dir, "sandbox:\n  network: true\n"))
	require.NoError(t, err)
	assert.True(t, cfg.Sandbox.Network.Enabled)
}

func TestLoadErrorsNameFileLineFieldAndFix(t *testing.T) {
	dir := project(t, "a", "b")
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"relative target", "sandbox:\n  mounts:\n    - source: ./a\n      target: cache\n",
			[]string{"golem-box.yaml:4: sandbox.mounts[0].target: must be absolute", `fix: write "/cache"`}},
		{"dotdot target", "sandbox:\n  mounts:\n    - {source: ./a, target: /x/../etc}\n",
			[]string{":3: sandbox.mounts[0].target: must not contain '..'"}},
		{"unnormalised target", "sandbox:\n  mounts:\n    - {source: ./a, target: /x//y/}\n",
			[]string{"sandbox.mounts[0].target: must be normalised", `write "/x/y"`}},
		{"root target", "sandbox:\n  mounts:\n    - {source: ./a, target: /}\n",
			[]string{`sandbox.mounts[0].target: cannot be "/"`, "set sandbox.root"}},
		{"duplicate target", "sandbox:\n  mounts:\n    - {source: ./a, target: /x}\n    - {source: ./b, target: /x}\n",
			[]string{":4: sandbox.mounts[1].target: /x is already the target of sandbox.mounts[0]"}},
		{"missing source", "sandbox:\n  root: ./nope\n",
			[]string{":2: sandbox.root:", "nope does not exist", "mkdir -p"}},
		{"unset variable", "sandbox:\n  mounts:\n    - {source: $GOLEM_SURELY_UNSET/x, target: /x}\n",
			[]string{"sandbox.mounts[0].source: environment variable $GOLEM_SURELY_UNSET is not set"}},
		{"unknown field", "sandbox:\n  root: .\n  mount:\n    - {source: ./a, target: /x}\n",
			[]string{":3: sandbox.mount: unknown field", "use one of: root, readonly, mounts"}},
		{"unknown mount field", "sandbox:\n  mounts:\n    - {src: ./a, target: /x}\n",
			[]string{":3: sandbox.mounts[0].src: unknown field", "source, target, readonly, name"}},
		{"bad type", "sandbox:\n  readonly: perhaps\n",
			[]string{"golem-box.yaml:2:", "perhaps"}},
		{"bad yaml", "sandbox:\n  root: [\n",
			[]string{"golem-box.yaml:"}},
		{"bad zone mode", "sandbox:\n  zones:\n    data: {path: ./a, mode: rwx}\n",
			[]string{"sandbox.zones.data.mode: unknown mode \"rwx\"", `write "ro" or "rw"`}},
		{"bad trust", "sandbox:\n  mounts:\n    - {source: ., target: /x, trust: maybe}\n",
			[]string{":3: sandbox.mounts[0].trust: unknown trust \"maybe\"", `"untrusted"`}},
		{"bad backend", "sandbox:\n  backend: vm\n",
			[]string{":2: sandbox.backend: unknown backend \"vm\"", "bwrap"}},
		{"bad domain", "sandbox:\n  network: {allow: [\"http://x\"]}\n",
			[]string{"sandbox.network.allow[0]: \"http://x\" is not a domain name"}},
		{"empty allow-list", "sandbox:\n  network: {allow: []}\n",
			[]string{":2:", "network.allow is empty", "network: false"}},
		{"unknown network field", "sandbox:\n  network: {hosts: [a.b]}\n",
			[]string{":2:", "network.hosts is not a known field"}},
		{"bad suffix", "sandbox:\n  files: {suffixes: [md]}\n",
			[]string{"sandbox.files.suffixes[0]", `".md"`}},
		{"bad size", "sandbox:\n  limits: {memory: lots}\n",
			[]string{":2:", "invalid size \"lots\""}},
		{"sensitive root", "sandbox:\n  root: /\n",
			[]string{"sandbox.root: refusing /: it is the host's root directory", "dangerous_allow_sensitive_sources"}},
		{"sensitive mount", "sandbox:\n  mounts:\n    - {source: /proc/self, target: /p}\n",
			[]string{"sandbox.mounts[0].source: refusing", "under /proc"}},
		{"not a mapping", "sandbox: 3\n",
			[]string{"sandbox: must be a mapping"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeConfig(t, dir, tc.body))
			require.Error(t, err)
			require.ErrorIs(t, err, ErrInvalidConfig)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	dir := project(t)
	_, err := Load(writeConfig(t, dir, "sandbox:\n  mounts:\n    - {source: ./x, target: a}\n    - {source: ./y, target: b}\n"))
	require.Error(t, err)
	var n int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *ConfigError
		if errors.As(e, &ce) {
			n++
		}
	}
	assert.Equal(t, 4, n, "two missing sources and two relative targets: %v", err)
}

func TestSensitiveSources(t *testing.T) {
	dir := project(t)
	link := filepath.Join(dir, "rootlink")
	require.NoError(t, os.Symlink("/", link))
	for _, p := range []string{"/", "/proc", "/sys/fs", "/dev", "/boot", link} {
		assert.NotEmpty(t, SensitiveReason(p), p)
	}
	assert.Empty(t, SensitiveReason(dir))
	assert.Empty(t, SensitiveReason("/usr"))
	// The danger option lets them through.
	s := Sandbox{Root: link, DangerousAllowSensitiveSources: true}
	require.NoError(t, s.Validate())
}

func TestFind(t *testing.T) {
	dir := project(t, "a/b/c")
	_, err := Find(filepath.Join(dir, "a/b/c"))
	require.ErrorIs(t, err, ErrNoConfig)
	want := writeConfig(t, filepath.Join(dir, "a"), "")
	got, err := Find(filepath.Join(dir, "a/b/c"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestLoadRefusesHugeFiles(t *testing.T) {
	dir := project(t)
	p := filepath.Join(dir, FileName)
	require.NoError(t, os.WriteFile(p, make([]byte, MaxConfigBytes+1), 0o644))
	_, err := Load(p)
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "larger than")
}

func TestShadows(t *testing.T) {
	dir := project(t, "proj/cache", "c")
	s := Sandbox{Root: filepath.Join(dir, "proj"), Mounts: []Mount{
		{Source: filepath.Join(dir, "c"), Target: "/cache"},
		{Source: filepath.Join(dir, "c"), Target: "/other"},
	}}
	require.NoError(t, s.Validate())
	assert.Equal(t, []Shadow{{Target: "/cache", Hidden: filepath.Join(dir, "proj/cache"), By: "/"}}, s.Shadows())
}

func TestByteSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]ByteSize{"10": 10, "1k": 1024, "64m": 64 << 20, "1g": 1 << 30, "1.5GiB": 3 << 29, "2MB": 2 << 20} {
		got, err := ParseByteSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-1", "x", "1q", "1e30g"} {
		_, err := ParseByteSize(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "64m", ByteSize(64<<20).String())
}

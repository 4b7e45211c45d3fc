package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var binary string

// TestMain builds the real binary once: exit statuses and stdio are part of
// the contract.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "golem-box-cli-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "golem-box")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func gb(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	// No controlling terminal (nobody to prompt, even under an interactive
	// make test), and approval logs in a place of the test's own.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// seedTree builds seed 000's example: /home/user/project and /home/user/.cache.
func seedTree(t *testing.T) (home string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home/user")
	for _, d := range []string{"project/src", ".cache/npm"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, "project/src/app.ts"), []byte("export {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, "project/README.md"), []byte("# hi\n"), 0o644))
	return home
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		b, _ := os.ReadFile(p)
		out[p] = d.Type().String() + string(b)
		return nil
	}))
	return out
}

// TestSeedExampleTable runs seed 000's resolution table through the CLI.
func TestSeedExampleTable(t *testing.T) {
	home := seedTree(t)
	flags := []string{"--root", filepath.Join(home, "project"), "-v", filepath.Join(home, ".cache") + ":/cache:ro"}
	for _, tc := range []struct{ virtual, host, mount, mode string }{
		{"/src/app.ts", "/home/user/project/src/app.ts", "/", "rw"},
		{"/README.md", "/home/user/project/README.md", "/", "rw"},
		{"/cache/npm/pkg", "/home/user/.cache/npm/pkg", "/cache", "ro"},
	} {
		r := gb(t, home, "", append(flags, "resolve", tc.virtual)...)
		require.Equal(t, 0, r.code, r.stderr)
		fields := strings.Split(strings.TrimSpace(r.stdout), "\t")
		require.Len(t, fields, 4, r.stdout)
		assert.Equal(t, tc.virtual, fields[0])
		assert.True(t, strings.HasSuffix(fields[1], tc.host), "%s does not end in %s", fields[1], tc.host)
		assert.Equal(t, "mount "+tc.mount, fields[2])
		assert.Equal(t, tc.mode, fields[3])
	}
	r := gb(t, home, "", append(flags, "resolve", "/../etc/passwd")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "path is outside the sandbox")
	assert.Contains(t, r.stderr, "Readable paths: /, /cache")

	r = gb(t, home, "", append(flags, "--output", "json", "resolve", "/cache/npm/pkg")...)
	require.Equal(t, 0, r.code, r.stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows))
	assert.Equal(t, true, rows[0]["readonly"])
	assert.Equal(t, "/cache", rows[0]["mount"])
}

func TestWriteToReadOnlyMountExitsNonZero(t *testing.T) {
	home := seedTree(t)
	flags := []string{"--root", filepath.Join(home, "project"), "--readonly",
		"--mount", "type=bind,source=" + filepath.Join(home, ".cache") + ",target=/cache,readonly"}
	before := snapshot(t, home)
	for _, args := range [][]string{
		{"write", "/cache/x", "--content", "data"},
		{"write", "/src/app.ts", "--content", "data"},
		{"edit", "/src/app.ts", "--old", "export", "--new", "import"},
		{"rm", "/README.md"},
	} {
		r := gb(t, home, "", append(flags, args...)...)
		assert.Equal(t, 1, r.code, args)
		assert.Contains(t, r.stderr, "path is read-only")
		assert.Contains(t, r.stderr, "Writable paths: none")
	}
	assert.Equal(t, before, snapshot(t, home), "the disk is untouched")

	rw := []string{"--root", filepath.Join(home, "project"), "-v", filepath.Join(home, ".cache") + ":/cache:ro"}
	r := gb(t, home, "", append(rw, "write", "/cache/x", "--content", "data")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "Writable paths: /")
}

func TestFileCommands(t *testing.T) {
	home := seedTree(t)
	p := filepath.Join(home, "project")
	cfg := "sandbox:\n  root: .\n  approval: {write: preApproved, delete: preApproved}\n  mounts:\n    - {source: ../.cache, target: /cache, readonly: true}\n"
	require.NoError(t, os.WriteFile(filepath.Join(p, "golem-box.yaml"), []byte(cfg), 0o644))
	sub := filepath.Join(p, "src")

	r := gb(t, sub, "line one\nline two\n", "write", "/notes/a.md") // config found from a subdirectory
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "wrote 18 bytes to /notes/a.md\n", r.stdout)
	r = gb(t, sub, "", "write", "/notes/a.md", "--append", "--content", "line three\n")
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, sub, "", "read", "/notes/a.md", "--offset", "2", "--limit", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "line two\n", r.stdout)
	assert.Contains(t, r.stderr, "lines 2-2 of 3; continue with --offset 3")
	r = gb(t, sub, "", "edit", "/notes/a.md", "--old", "two", "--new", "2")
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, sub, "", "edit", "/notes/a.md", "--old", "line", "--new", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "appears 3 times")
	b, _ := os.ReadFile(filepath.Join(p, "notes/a.md"))
	assert.Equal(t, "line one\nline 2\nline three\n", string(b))

	r = gb(t, sub, "", "ls", "/")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "/cache/")
	assert.Contains(t, r.stdout, "/notes/")
	r = gb(t, sub, "", "-o", "json", "ls", "/**/*.md")
	require.Equal(t, 0, r.code, r.stderr)
	var lr struct{ Entries []struct{ Path string } }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &lr))
	require.Len(t, lr.Entries, 2)
	assert.Equal(t, "/README.md", lr.Entries[0].Path)
	r = gb(t, sub, "", "stat", "/cache")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "dir     ro")
	r = gb(t, sub, "", "rm", "-r", "/notes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoDirExists(t, filepath.Join(p, "notes"))

	r = gb(t, sub, "", "check")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, filepath.Join(p, "golem-box.yaml"))
	assert.Contains(t, r.stdout, "network:  off")
	r = gb(t, sub, "", "-o", "json", "check")
	require.Equal(t, 0, r.code, r.stderr)
	var ck struct {
		Readable []string
		Sandbox  struct{ Network bool }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &ck))
	assert.Equal(t, []string{"/", "/cache"}, ck.Readable)
}

func TestCheckReportsShadowing(t *testing.T) {
	home := seedTree(t)
	require.NoError(t, os.MkdirAll(filepath.Join(home, "project/cache"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(home, "project/etc"), 0o755))
	r := gb(t, home, "", "--root", "project", "-v", "./.cache:/cache:ro", "check")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "note: mount /cache hides "+filepath.Join(home, "project/cache")+" (from mount /)")
	assert.Contains(t, r.stdout, "note: /etc of the root is hidden in containers by the image's own /etc")
}

func TestUsageAndConfigErrorsExitTwo(t *testing.T) {
	home := seedTree(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", "project", "--bogus", "ls"}, "unknown flag: --bogus"},
		{[]string{"--root", "project", "read"}, "accepts 1 arg"},
		{[]string{"--root", "project", "-o", "yaml", "ls"}, "--output must be text or json"},
		{[]string{"ls"}, "no golem-box.yaml found"},
		{[]string{"--root", "missing", "ls"}, "--root: " + filepath.Join(home, "missing") + " does not exist"},
		{[]string{"--root", "project", "-v", "vol:/x", "ls"}, `-v "vol:/x": "vol" looks like a named volume`},
		{[]string{"--root", "project", "--mount", "type=bind,source=.,target=/x,bind-propagation=shared", "ls"}, "bind-propagation is not supported"},
		{[]string{"--root", "project", "-v", ".:relative", "ls"}, "must be absolute"},
	} {
		r := gb(t, home, "", tc.args...)
		assert.Equal(t, 2, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, tc.args)
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, "golem-box.yaml"), []byte("sandbox:\n  root: ./project\n  mounts:\n    - {source: ./.cache, target: cache}\n"), 0o644))
	r := gb(t, home, "", "ls")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "golem-box.yaml:4: sandbox.mounts[0].target: must be absolute")
}

func TestVersionAndCompletion(t *testing.T) {
	r := gb(t, t.TempDir(), "", "version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "golem-box ")
	r = gb(t, t.TempDir(), "", "completion", "bash")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "__golem-box")
}

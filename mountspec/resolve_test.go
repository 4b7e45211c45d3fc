package mountspec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedSandbox is seed 000's "Path Resolution" example.
func seedSandbox() *Sandbox {
	return &Sandbox{
		Root:   "/home/user/project",
		Mounts: []Mount{{Source: "/home/user/.cache", Target: "/cache", ReadOnly: true}},
	}
}

func TestResolveSeedExamples(t *testing.T) {
	t.Parallel()
	s := seedSandbox()
	for _, tc := range []struct {
		virtual, host, mount string
		err                  error
	}{
		{"/src/app.ts", "/home/user/project/src/app.ts", "/", nil},
		{"/README.md", "/home/user/project/README.md", "/", nil},
		{"/cache/npm/pkg", "/home/user/.cache/npm/pkg", "/cache", nil},
		{"/../etc/passwd", "", "", ErrOutsideSandbox},
		// Beyond the seed: normalisation and boundaries.
		{"/", "/home/user/project", "/", nil},
		{"src//a/./b", "/home/user/project/src/a/b", "/", nil},
		{"/cache", "/home/user/.cache", "/cache", nil},
		{"/cachex/a", "/home/user/project/cachex/a", "/", nil},
		{"/src/../cache/x", "/home/user/.cache/x", "/cache", nil},
		{"/cache/../../x", "", "", ErrOutsideSandbox},
		{"/a/b/../../..", "", "", ErrOutsideSandbox},
		{"", "", "", ErrInvalidPath},
		{"/a\x00b", "", "", ErrInvalidPath},
		{"/" + strings.Repeat("a", 256), "", "", ErrInvalidPath},
		{strings.Repeat("/aaaaaaa", 600), "", "", ErrInvalidPath},
	} {
		t.Run(tc.virtual, func(t *testing.T) {
			r, err := s.Resolve(tc.virtual)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.host, r.Host)
			assert.Equal(t, tc.mount, r.Target)
		})
	}
}

func TestResolveLongestMountWins(t *testing.T) {
	t.Parallel()
	s := &Sandbox{Mounts: []Mount{
		{Source: "/h/a", Target: "/a"},
		{Source: "/h/ab", Target: "/a/b", ReadOnly: true},
	}}
	r, err := s.Resolve("/a/b/c")
	require.NoError(t, err)
	assert.Equal(t, "/h/ab/c", r.Host)
	assert.True(t, r.ReadOnly)
	r, err = s.Resolve("/a/bc")
	require.NoError(t, err)
	assert.Equal(t, "/h/a/bc", r.Host)
	// No root: anything outside the mounts is outside the sandbox.
	_, err = s.Resolve("/etc/passwd")
	require.ErrorIs(t, err, ErrOutsideSandbox)
	assert.Contains(t, err.Error(), "Readable paths: /a, /a/b")
}

func TestCanReadCanWrite(t *testing.T) {
	t.Parallel()
	s := seedSandbox()
	assert.True(t, s.CanRead("/src/x"))
	assert.True(t, s.CanWrite("/src/x"))
	assert.True(t, s.CanRead("/cache/x"))
	assert.False(t, s.CanWrite("/cache/x"))
	assert.False(t, s.CanRead("/../x"))
	_, err := s.ResolveWritable("write", "/cache/x")
	require.ErrorIs(t, err, ErrReadOnly)
	assert.Equal(t, "Cannot write \"/cache/x\": path is read-only.\nWritable paths: /", err.Error())
}

func ptr[T any](v T) *T { return &v }

// TestInheritanceTable is seed 000's "Permission Inheritance" table.
func TestInheritanceTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		parentRO  bool
		requested *bool
		wantRO    bool
		wantErr   error
	}{
		{"read-write, default → read-write", false, nil, false, nil},
		{"read-write, readonly: true → read-only", false, ptr(true), true, nil},
		{"read-only, default → read-only", true, nil, true, nil},
		{"read-only, readonly: false → error", true, ptr(false), false, ErrUpgrade},
		{"read-write, readonly: false → read-write", false, ptr(false), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Sandbox{Root: "/project", ReadOnly: tc.parentRO}
			c, err := p.Restrict(Restriction{ReadOnly: tc.requested})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantRO, c.ReadOnly)
			assert.Equal(t, !tc.wantRO, c.CanWrite("/src/a.ts"))
		})
	}
}

// TestPerMountInheritance is seed 000's "Per-Mount Inheritance" example.
func TestPerMountInheritance(t *testing.T) {
	t.Parallel()
	p := &Sandbox{Root: "/project", Mounts: []Mount{{Source: "/c", Target: "/cache", ReadOnly: true}}}
	c, err := p.Restrict(Restriction{ReadOnly: ptr(true)})
	require.NoError(t, err)
	assert.False(t, c.CanWrite("/"))
	assert.False(t, c.CanWrite("/cache/x"))
	assert.True(t, c.CanRead("/cache/x"))
	// The parent is unchanged.
	assert.True(t, p.CanWrite("/x"))
	// Asking to keep write access where one mount is read-only names it.
	_, err = p.Restrict(Restriction{ReadOnly: ptr(false)})
	require.ErrorIs(t, err, ErrUpgrade)
	assert.Contains(t, err.Error(), "/cache")
}

// TestRestrictSubtree is seed 000's code-reviewer example and its edges.
func TestRestrictSubtree(t *testing.T) {
	t.Parallel()
	p := &Sandbox{Root: "/home/user/my-project", Mounts: []Mount{
		{Source: "/gen", Target: "/src/gen"},
		{Source: "/c", Target: "/cache", ReadOnly: true},
	}}
	c, err := p.Restrict(Restriction{Restrict: "/src", ReadOnly: ptr(true)})
	require.NoError(t, err)
	r, err := c.Resolve("/src/app.ts")
	require.NoError(t, err)
	assert.Equal(t, "/home/user/my-project/src/app.ts", r.Host, "paths are paths: same virtual path as the parent")
	assert.True(t, r.ReadOnly)
	r, err = c.Resolve("/src/gen/x.go")
	require.NoError(t, err)
	assert.Equal(t, "/gen/x.go", r.Host, "mounts inside the subtree are kept")
	for _, outside := range []string{"/secrets/api-key.txt", "/cache/x", "/", "/src/../secrets"} {
		assert.False(t, c.CanRead(outside), outside)
	}
	assert.False(t, c.CanWrite("/src/app.ts"))
	assert.Equal(t, []string{"/src", "/src/gen"}, c.ReadablePaths())

	// A restriction of a restriction narrows further, never widens.
	g, err := c.Restrict(Restriction{Restrict: "/src/gen"})
	require.NoError(t, err)
	assert.False(t, g.CanRead("/src/app.ts"))
	assert.False(t, g.CanWrite("/src/gen/x.go"), "read-only is inherited")
	w, err := g.Restrict(Restriction{Restrict: "/src"})
	require.NoError(t, err, "an ancestor of a mount keeps only the mounts below it")
	assert.Equal(t, g.ReadablePaths(), w.ReadablePaths(), "asking for a wider subtree gives nothing more")
	assert.False(t, w.CanRead("/src/app.ts"))
	_, err = g.Restrict(Restriction{Restrict: "/secrets"})
	require.ErrorIs(t, err, ErrOutsideSandbox, "a subtree outside the sandbox is an error")
	_, err = p.Restrict(Restriction{Restrict: "/../x"})
	require.ErrorIs(t, err, ErrOutsideSandbox)
}

func TestRestrictWithoutRoot(t *testing.T) {
	t.Parallel()
	p := &Sandbox{Mounts: []Mount{{Source: "/i", Target: "/data/in", ReadOnly: true}, {Source: "/o", Target: "/data/out"}}}
	c, err := p.Restrict(Restriction{Restrict: "/data"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/data/in", "/data/out"}, c.ReadablePaths())
	assert.True(t, p.IsMountAncestor("/data"))
	assert.False(t, p.IsMountAncestor("/data/in"))
	_, err = p.Restrict(Restriction{Restrict: "/etc"})
	require.True(t, errors.Is(err, ErrOutsideSandbox))
}

func BenchmarkResolve(b *testing.B) {
	s := seedSandbox()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Resolve("/cache/npm/pkg/index.js"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPerMountRules: a mount's approval and file rules replace the
// sandbox's for its files, and travel with it through Restrict.
func TestPerMountRules(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"p/src", "final/sub"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	file := filepath.Join(dir, FileName)
	require.NoError(t, os.WriteFile(file, []byte(`sandbox:
  root: p
  files: {suffixes: [.go], max_file_bytes: 1m}
  approval: {write: preApproved}
  mounts:
    - {source: final, target: /final, suffixes: [.md], max_file_bytes: 2k, approval: {delete: blocked}}
`), 0o644))
	cfg, err := Load(file)
	require.NoError(t, err)
	s := &cfg.Sandbox
	root, err := s.Resolve("/src/a.go")
	require.NoError(t, err)
	assert.Equal(t, Approval{Write: ApprovalPreApproved, Delete: ApprovalAsk}, root.Approval)
	assert.Equal(t, FileRules{Suffixes: []string{".go"}, MaxFileBytes: 1 << 20}, root.Files)
	fin, err := s.Resolve("/final/sub/r.md")
	require.NoError(t, err)
	assert.Equal(t, Approval{Write: ApprovalPreApproved, Delete: ApprovalBlocked}, fin.Approval, "unset modes come from the sandbox")
	assert.Equal(t, FileRules{Suffixes: []string{".md"}, MaxFileBytes: 2 << 10}, fin.Files)

	for sub, want := range map[string]Resolution{"/src": root, "/final/sub": fin} {
		child, err := s.Restrict(Restriction{Restrict: sub})
		require.NoError(t, err)
		r, err := child.Resolve(sub + "/x")
		require.NoError(t, err)
		assert.Equal(t, want.Approval, r.Approval, sub)
		assert.Equal(t, want.Files, r.Files, sub)
	}
	e := s.PathError("write", "/final/a.txt", ErrSuffixNotAllowed)
	assert.Equal(t, "Cannot write \"/final/a.txt\": suffix not allowed.\nAllowed suffixes: .md", e.Error())

	require.NoError(t, os.WriteFile(file, []byte("sandbox:\n  root: p\n  approval: {write: always}\n  mounts:\n    - {source: final, target: /final, suffixes: [md]}\n"), 0o644))
	_, err = Load(file)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `:3: sandbox.approval.write: unknown approval "always" (fix: write "preApproved" (no prompt), "ask" (the default) or "blocked")`)
	assert.Contains(t, err.Error(), `:5: sandbox.mounts[0].suffixes[0]: "md" is not a file suffix (fix: write it with a leading dot, such as ".md")`)
}

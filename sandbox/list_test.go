package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func paths(r *ListResult) []string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.Path)
	}
	return out
}

func TestListMergesMounts(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, os.MkdirAll(x.host("proj/cache/hidden"), 0o755)) // shadowed by /cache
	r, err := x.fs.List("/")
	require.NoError(t, err)
	assert.Equal(t, []string{"/cache", "/etc", "/out", "/src"}, paths(r))
	for _, e := range r.Entries {
		if e.Path == "/cache" {
			assert.True(t, e.ReadOnly)
			assert.Equal(t, "/cache", e.Mount)
		}
	}
	r, err = x.fs.List("/cache")
	require.NoError(t, err)
	assert.Equal(t, []string{"/cache/npm"}, paths(r), "the mount's content, not the shadowed directory")

	r, err = x.fs.List("/src/app.ts")
	require.NoError(t, err)
	assert.Equal(t, []string{"/src/app.ts"}, paths(r))
	_, err = x.fs.List("/nope")
	require.Error(t, err)
	_, err = x.fs.List("/../")
	require.ErrorIs(t, err, mountspec.ErrOutsideSandbox)
}

func TestListGlob(t *testing.T) {
	x := newFixture(t)
	for _, p := range []string{"proj/src/a.go", "proj/src/pkg/b.go", "proj/src/pkg/deep/c.go", "out/d.go"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(x.host(p)), 0o755))
		require.NoError(t, os.WriteFile(x.host(p), nil, 0o644))
	}
	require.NoError(t, os.Symlink("/src", x.host("proj/src/pkg/loop"))) // not descended
	for pattern, want := range map[string][]string{
		"/src/*.go":        {"/src/a.go"},
		"/src/**/*.go":     {"/src/a.go", "/src/pkg/b.go", "/src/pkg/deep/c.go"},
		"/**/*.go":         {"/out/d.go", "/src/a.go", "/src/pkg/b.go", "/src/pkg/deep/c.go"},
		"/src/pkg/*":       {"/src/pkg/b.go", "/src/pkg/deep", "/src/pkg/loop"},
		"/*/npm/*.json":    {"/cache/npm/pkg.json"},
		"src/p?g/b.go":     {"/src/pkg/b.go"},
		"/src/**":          {"/src/a.go", "/src/app.ts", "/src/pkg", "/src/pkg/b.go", "/src/pkg/deep", "/src/pkg/deep/c.go", "/src/pkg/loop"},
		"/nothing/**/*.go": nil,
	} {
		t.Run(pattern, func(t *testing.T) {
			r, err := x.fs.List(pattern)
			require.NoError(t, err)
			assert.Equal(t, want, paths(r))
		})
	}
	_, err := x.fs.List("/src/[")
	require.Error(t, err)
}

func TestMountsOnlySandbox(t *testing.T) {
	x := newFixture(t, func(s *mountspec.Sandbox) {
		s.Root = ""
		s.Mounts[0].Target = "/data/in"
		s.Mounts[1].Target = "/data/out"
	})
	r, err := x.fs.List("/")
	require.NoError(t, err)
	assert.Equal(t, []string{"/data"}, paths(r))
	r, err = x.fs.List("/data")
	require.NoError(t, err)
	assert.Equal(t, []string{"/data/in", "/data/out"}, paths(r))
	st, err := x.fs.Stat("/data")
	require.NoError(t, err)
	assert.Equal(t, EntryDir, st.Type)
	_, err = x.fs.Write("/data/x", []byte("x"), WriteOptions{})
	require.ErrorIs(t, err, mountspec.ErrOutsideSandbox)
	assert.Contains(t, err.Error(), "Readable paths: /data/in, /data/out")
	_, err = x.fs.ReadFile("/src/app.ts")
	require.ErrorIs(t, err, mountspec.ErrOutsideSandbox)
	b, err := x.fs.ReadFile("/data/in/npm/pkg.json")
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(b))
}

func TestStat(t *testing.T) {
	x := newFixture(t)
	st, err := x.fs.Stat("/src/app.ts")
	require.NoError(t, err)
	assert.Equal(t, EntryFile, st.Type)
	assert.Equal(t, int64(21), st.Size)
	assert.Equal(t, "/", st.Mount)
	st, err = x.fs.Stat("/cache/npm")
	require.NoError(t, err)
	assert.Equal(t, EntryDir, st.Type)
	assert.True(t, st.ReadOnly)
	_, err = x.fs.Stat("/missing")
	require.Error(t, err)
	assert.Equal(t, "Cannot stat \"/missing\": file does not exist.", err.Error())
}

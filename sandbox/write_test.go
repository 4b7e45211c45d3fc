package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snapshot maps every path under dir to its content, to prove "untouched".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b, _ := os.ReadFile(p)
		out[p] = d.Type().String() + string(b)
		return nil
	}))
	return out
}

func TestWriteToReadOnlyLeavesDiskUntouched(t *testing.T) {
	x := newFixture(t)
	before := snapshot(t, x.dir)
	for _, p := range []string{"/cache/new.txt", "/cache/npm/pkg.json", "/cache/deep/er/file"} {
		_, err := x.fs.Write(p, []byte("x"), WriteOptions{})
		require.ErrorIs(t, err, mountspec.ErrReadOnly, p)
		assert.Equal(t, "Cannot write \""+p+"\": path is read-only.\nWritable paths: /, /out", err.Error())
		_, err = x.fs.Edit(p, "{", "[", false)
		require.ErrorIs(t, err, mountspec.ErrReadOnly)
		require.ErrorIs(t, x.fs.Delete(p, true), mountspec.ErrReadOnly)
	}
	assert.Equal(t, before, snapshot(t, x.dir))

	ro := newFixture(t, func(s *mountspec.Sandbox) { s.ReadOnly = true; s.Mounts = s.Mounts[:1] })
	_, err := ro.fs.Write("/a", []byte("x"), WriteOptions{})
	assert.Equal(t, "Cannot write \"/a\": path is read-only.\nWritable paths: none", err.Error())
}

func TestWrite(t *testing.T) {
	x := newFixture(t)
	r, err := x.fs.Write("/out/a/b/c.txt", []byte("one\n"), WriteOptions{})
	require.NoError(t, err)
	assert.Equal(t, &WriteResult{Path: "/out/a/b/c.txt", Bytes: 4, Created: true}, r)
	_, err = x.fs.Write("/out/a/b/c.txt", []byte("two\n"), WriteOptions{Append: true})
	require.NoError(t, err)
	b, _ := os.ReadFile(x.host("out/a/b/c.txt"))
	assert.Equal(t, "one\ntwo\n", string(b))

	// Replacing keeps the mode and leaves no temporary file behind.
	require.NoError(t, os.Chmod(x.host("out/a/b/c.txt"), 0o600))
	r, err = x.fs.Write("/out/a/b/c.txt", []byte("three\n"), WriteOptions{})
	require.NoError(t, err)
	assert.False(t, r.Created)
	fi, _ := os.Stat(x.host("out/a/b/c.txt"))
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
	des, _ := os.ReadDir(x.host("out/a/b"))
	assert.Len(t, des, 1)

	_, err = x.fs.Write("/out", []byte("x"), WriteOptions{})
	require.ErrorIs(t, err, syscall.EISDIR, "a mount point is a directory")
	_, err = x.fs.Write("/src", []byte("x"), WriteOptions{})
	require.ErrorIs(t, err, syscall.EISDIR)
	_, err = x.fs.Write("/src/app.ts/x", []byte("x"), WriteOptions{})
	require.Error(t, err)
}

func TestWriteIsAtomic(t *testing.T) {
	x := newFixture(t)
	old := []byte(string(make([]byte, 1<<20)))
	for i := range old {
		old[i] = 'a'
	}
	neu := make([]byte, 1<<20)
	for i := range neu {
		neu[i] = 'b'
	}
	_, err := x.fs.Write("/out/f", old, WriteOptions{})
	require.NoError(t, err)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			c := old
			if i%2 == 0 {
				c = neu
			}
			_, err := x.fs.Write("/out/f", c, WriteOptions{})
			assert.NoError(t, err)
		}
	}()
	for i := 0; i < 200; i++ {
		b, err := os.ReadFile(x.host("out/f"))
		require.NoError(t, err)
		require.Len(t, b, 1<<20)
		assert.True(t, b[0] == b[len(b)-1], "a reader saw a mix of two writes")
	}
	stop.Store(true)
	wg.Wait()
}

func TestEdit(t *testing.T) {
	x := newFixture(t)
	r, err := x.fs.Edit("/src/app.ts", "line 2", "LINE TWO", false)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Replacements)
	b, _ := os.ReadFile(x.host("proj/src/app.ts"))
	assert.Equal(t, "line 1\nLINE TWO\nline 3\n", string(b))

	_, err = x.fs.Edit("/src/app.ts", "nope", "x", false)
	require.ErrorIs(t, err, ErrEditNoMatch)
	_, err = x.fs.Edit("/src/app.ts", "line", "x", false)
	require.ErrorIs(t, err, ErrEditAmbiguous)
	assert.Contains(t, err.Error(), "It appears 2 times")
	_, err = x.fs.Edit("/src/app.ts", "", "x", false)
	require.ErrorIs(t, err, ErrEditNoMatch)
	b2, _ := os.ReadFile(x.host("proj/src/app.ts"))
	assert.Equal(t, b, b2, "failed edits change nothing")

	r, err = x.fs.Edit("/src/app.ts", "line", "row", true)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Replacements)
	b, _ = os.ReadFile(x.host("proj/src/app.ts"))
	assert.Equal(t, "row 1\nLINE TWO\nrow 3\n", string(b))
}

func TestDelete(t *testing.T) {
	x := newFixture(t)
	require.NoError(t, os.MkdirAll(x.host("out/d/e"), 0o755))
	require.NoError(t, os.WriteFile(x.host("out/d/e/f"), nil, 0o644))
	require.NoError(t, os.Symlink("/src/app.ts", x.host("out/link")))

	require.NoError(t, x.fs.Delete("/out/link", false))
	assert.FileExists(t, x.host("proj/src/app.ts"), "a link is removed, not its target")
	assert.NoFileExists(t, x.host("out/link"))

	require.Error(t, x.fs.Delete("/out/d", false), "a non-empty directory needs recursive")
	require.NoError(t, x.fs.Delete("/out/d", true))
	assert.NoDirExists(t, x.host("out/d"))

	require.ErrorIs(t, x.fs.Delete("/out/missing", false), fs.ErrNotExist)
	err := x.fs.Delete("/out", true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mount point")
	assert.DirExists(t, x.host("out"))
	err = x.fs.Delete("/", true)
	require.Error(t, err)
	assert.DirExists(t, x.host("proj/src"))

	// A directory holding a mount point cannot go.
	y := newFixture(t, func(s *mountspec.Sandbox) { s.Mounts[1].Target = "/src/out" })
	err = y.fs.Delete("/src", true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "contains the mount point /src/out")
	assert.FileExists(t, y.host("proj/src/app.ts"))
}

// TestSwapRace races a goroutine that swaps a directory for a symbolic link
// to the outside while 10,000 reads run: no read may return outside data.
func TestSwapRace(t *testing.T) {
	x := newFixture(t)
	inside := x.host("proj/swap")
	parked := x.host("proj/parked")
	require.NoError(t, os.MkdirAll(inside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(inside, "secret.txt"), []byte("inside"), 0o644))
	evil := x.host("proj/evil")
	require.NoError(t, os.Symlink(x.host("outside"), evil))

	var stop atomic.Bool
	var swaps atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			// swap → symlink to outside, then back to the real directory
			_ = os.Rename(inside, parked)
			_ = os.Rename(evil, inside)
			_ = os.Rename(inside, evil)
			_ = os.Rename(parked, inside)
			swaps.Add(1)
		}
	}()
	var ok, failed int
	for i := 0; i < 10_000; i++ {
		b, err := x.fs.ReadFile("/swap/secret.txt")
		if err != nil {
			assert.NotContains(t, err.Error(), secret)
			failed++
			continue
		}
		require.Equal(t, "inside", string(b), "read %d returned data from outside the sandbox", i)
		ok++
		r, err := x.fs.Read("/swap/secret.txt", ReadOptions{})
		if err == nil {
			require.Equal(t, "inside", r.Text)
		}
	}
	stop.Store(true)
	<-done
	t.Logf("10000 reads during %d swaps: %d succeeded, %d refused", swaps.Load(), ok, failed)
	assert.Greater(t, swaps.Load(), int64(100), "the race must actually have raced")
	x.assertCanary(t)
}

func TestFSRestrict(t *testing.T) {
	x := newFixture(t)
	c, err := x.fs.Restrict(mountspec.Restriction{Restrict: "/src", ReadOnly: ptr(true)})
	require.NoError(t, err)
	defer c.Close()
	b, err := c.ReadFile("/src/app.ts")
	require.NoError(t, err)
	assert.Equal(t, "line 1\nline 2\nline 3\n", string(b))
	_, err = c.ReadFile("/etc/passwd")
	require.ErrorIs(t, err, mountspec.ErrOutsideSandbox)
	assert.Contains(t, err.Error(), "Readable paths: /src")
	_, err = c.Write("/src/app.ts", []byte("x"), WriteOptions{})
	require.ErrorIs(t, err, mountspec.ErrReadOnly)

	// A subtree that is a symbolic link is refused: restrict to the target.
	require.NoError(t, os.Symlink("/cache", x.host("proj/lnk")))
	_, err = x.fs.Restrict(mountspec.Restriction{Restrict: "/lnk"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic link to /cache")
}

func ptr[T any](v T) *T { return &v }

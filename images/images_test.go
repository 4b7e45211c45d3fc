package images

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func mkTar(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode, Size: int64(len(e.body))}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		require.NoError(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestHostileArchives(t *testing.T) {
	outside := t.TempDir()
	canary := filepath.Join(outside, "canary")
	require.NoError(t, os.WriteFile(canary, []byte("safe"), 0o644))
	for _, tc := range []struct {
		name    string
		entries []entry
	}{
		{"dotdot", []entry{{name: "../../../../" + canary, body: "pwned"}}},
		{"write through absolute symlink", []entry{{name: "evil", typ: tar.TypeSymlink, link: outside}, {name: "evil/canary", body: "pwned"}}},
		{"write through relative symlink", []entry{{name: "a/b", typ: tar.TypeDir, mode: 0o755}, {name: "a/b/up", typ: tar.TypeSymlink, link: "../../../../../../../.." + outside}, {name: "a/b/up/canary", body: "pwned"}}},
		{"hard link out", []entry{{name: "hl", typ: tar.TypeLink, link: "../../../../.." + canary}}},
		{"symlink then hard link through it", []entry{{name: "l", typ: tar.TypeSymlink, link: canary}, {name: "hl", typ: tar.TypeLink, link: "l"}, {name: "hl2", body: "pwned"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := t.TempDir()
			err := extract(bytes.NewReader(mkTar(t, tc.entries...)), dst)
			if err != nil {
				assert.ErrorIs(t, err, ErrUnsafeEntry)
			}
			assert.Equal(t, "safe", read(t, canary), "nothing outside the image changes")
			des, _ := os.ReadDir(outside)
			assert.Len(t, des, 1)
		})
	}
}

func TestExtractDropsPrivilegeAndDevices(t *testing.T) {
	dst := t.TempDir()
	require.NoError(t, extract(bytes.NewReader(mkTar(t,
		entry{name: "/bin/su", body: "x", mode: 0o4755},
		entry{name: "dev/sda", typ: tar.TypeBlock},
		entry{name: "fifo", typ: tar.TypeFifo},
		entry{name: "etc/.wh.passwd", body: ""},
		entry{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"},
	)), dst))
	fi, err := os.Stat(filepath.Join(dst, "bin/su"))
	require.NoError(t, err)
	assert.Zero(t, fi.Mode()&os.ModeSetuid, "setuid is dropped")
	assert.NoFileExists(t, filepath.Join(dst, "dev/sda"))
	assert.NoFileExists(t, filepath.Join(dst, "fifo"))
	assert.NoFileExists(t, filepath.Join(dst, "etc/.wh.passwd"))
	l, err := os.Readlink(filepath.Join(dst, "link"))
	require.NoError(t, err)
	assert.Equal(t, "/etc/passwd", l, "links are kept as written: they resolve inside the container")
}

func TestImportFormats(t *testing.T) {
	ctx := context.Background()
	c := &Cache{Dir: t.TempDir()}
	src := t.TempDir()

	// A root filesystem directory: same tree, same id.
	require.NoError(t, os.MkdirAll(filepath.Join(src, "dir/usr/bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "dir/usr/bin/tool"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("usr/bin", filepath.Join(src, "dir/bin")))
	a, err := c.Import(ctx, filepath.Join(src, "dir"), "dir:1")
	require.NoError(t, err)
	b, err := c.Import(ctx, filepath.Join(src, "dir"), "dir:2")
	require.NoError(t, err)
	assert.Equal(t, a.ID, b.ID)
	assert.ElementsMatch(t, []string{"dir:1", "dir:2"}, b.Names)
	assert.Equal(t, "#!/bin/sh\n", read(t, filepath.Join(b.Rootfs, "usr/bin/tool")))

	// A gzip root filesystem tarball.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(mkTar(t, entry{name: "etc/os-release", body: "ID=test\n"}))
	zw.Close()
	require.NoError(t, os.WriteFile(filepath.Join(src, "rootfs.tar.gz"), gz.Bytes(), 0o644))
	img, err := c.Import(ctx, filepath.Join(src, "rootfs.tar.gz"), "")
	require.NoError(t, err)
	assert.Equal(t, "ID=test\n", read(t, filepath.Join(img.Rootfs, "etc/os-release")))

	// A docker save tarball with two layers, the second deleting a file.
	l1, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(mkTar(t, entry{name: "keep", body: "1"}, entry{name: "gone", body: "2"}))), nil
	})
	require.NoError(t, err)
	l2, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(mkTar(t, entry{name: ".wh.gone"}, entry{name: "new", body: "3"}))), nil
	})
	require.NoError(t, err)
	layered, err := mutate.AppendLayers(empty.Image, l1, l2)
	require.NoError(t, err)
	ref, err := name.NewTag("local/test:1")
	require.NoError(t, err)
	require.NoError(t, tarball.WriteToFile(filepath.Join(src, "save.tar"), ref, layered))
	img, err = c.Import(ctx, filepath.Join(src, "save.tar"), "saved")
	require.NoError(t, err)
	d, _ := layered.Digest()
	assert.Equal(t, d.String(), img.ID, "an image keeps its own digest")
	assert.Equal(t, "1", read(t, filepath.Join(img.Rootfs, "keep")))
	assert.Equal(t, "3", read(t, filepath.Join(img.Rootfs, "new")))
	assert.NoFileExists(t, filepath.Join(img.Rootfs, "gone"), "whiteouts are applied")

	// The same image as an OCI layout.
	lp, err := layout.Write(filepath.Join(src, "layout"), empty.Index)
	require.NoError(t, err)
	require.NoError(t, lp.AppendImage(layered))
	img2, err := c.Import(ctx, filepath.Join(src, "layout"), "")
	require.NoError(t, err)
	assert.Equal(t, img.ID, img2.ID)

	all, err := c.List()
	require.NoError(t, err)
	assert.Len(t, all, 3)
}

func TestCacheLookup(t *testing.T) {
	ctx := context.Background()
	c := &Cache{Dir: t.TempDir()}
	img, err := c.BuildFromHost(ctx, "tools:1", "sh", "cat")
	require.NoError(t, err)
	again, err := c.BuildFromHost(ctx, "tools:2", "sh", "cat")
	require.NoError(t, err)
	assert.Equal(t, img.ID, again.ID, "builds are deterministic")
	assert.FileExists(t, filepath.Join(img.Rootfs, "usr/bin/sh"))
	assert.FileExists(t, filepath.Join(img.Rootfs, "usr/bin/cat"))
	l, err := os.Readlink(filepath.Join(img.Rootfs, "bin"))
	require.NoError(t, err)
	assert.Equal(t, "usr/bin", l)

	for _, ref := range []string{"tools:1", "tools:2", img.ID, img.ID[7:15]} {
		got, err := c.Get(ref)
		require.NoError(t, err, ref)
		assert.Equal(t, img.ID, got.ID)
	}
	_, err = c.Get("nope")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Get("abc")
	require.ErrorIs(t, err, ErrNotFound, "prefixes need 4 digits")
	_, err = c.Import(ctx, t.TempDir(), "Bad Name")
	require.Error(t, err)
	_, err = c.BuildFromHost(ctx, "", "surely-no-such-command")
	require.Error(t, err)

	_, err = c.Remove("tools:1")
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Dir(img.Rootfs))
	_, err = c.Get("tools:2")
	require.ErrorIs(t, err, ErrNotFound)
}

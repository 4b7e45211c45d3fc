package images

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Import adds src to the cache under name (optional): a root filesystem
// directory or tarball (plain or gzip), an OCI image layout directory, or a
// `docker save` tarball. Layered images are flattened, whiteouts applied.
func (c *Cache) Import(ctx context.Context, src, name string) (*Image, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(src, "oci-layout")); err == nil {
			img, err := fromLayout(src)
			if err != nil {
				return nil, fmt.Errorf("OCI layout %s: %w", src, err)
			}
			return c.addImage(img, name, "oci-layout "+src)
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(tarDir(pw, src)) }()
		defer pr.Close()
		return c.add(pr, "", name, "rootfs-dir "+src)
	}
	if isDockerSave(src) {
		img, err := tarball.ImageFromPath(src, nil)
		if err != nil {
			return nil, fmt.Errorf("docker save tarball %s: %w", src, err)
		}
		return c.addImage(img, name, "docker-save "+src)
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		r = gz
	}
	return c.add(r, "", name, "rootfs-tar "+src)
}

// addImage flattens an image and stores it under the image's digest.
func (c *Cache) addImage(img v1.Image, name, source string) (*Image, error) {
	d, err := img.Digest()
	if err != nil {
		return nil, err
	}
	rc := mutate.Extract(img)
	defer rc.Close()
	return c.add(rc, d.String(), name, source)
}

// isDockerSave recognises a tarball with a manifest.json at its top.
func isDockerSave(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for i := 0; i < 10_000; i++ {
		h, err := tr.Next()
		if err != nil {
			return false
		}
		if h.Name == "manifest.json" {
			return true
		}
	}
	return false
}

// fromLayout picks the image for this platform from an OCI layout.
func fromLayout(dir string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	return pick(idx, 0)
}

func pick(idx v1.ImageIndex, depth int) (v1.Image, error) {
	if depth > 4 {
		return nil, errors.New("image indexes nested too deeply")
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && (d.Platform.OS != "linux" || d.Platform.Architecture != runtime.GOARCH) {
			continue
		}
		if d.MediaType.IsIndex() {
			sub, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return nil, err
			}
			return pick(sub, depth+1)
		}
		if d.MediaType.IsImage() {
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no linux/%s image in it", runtime.GOARCH)
}

// tarDir writes a directory as a deterministic tar stream (sorted names,
// no times or owners), so that the same tree always gets the same id.
func tarDir(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		h, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return nil // sockets and the like have no tar form: skip them
		}
		h.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			h.Name += "/"
		}
		h.ModTime, h.AccessTime, h.ChangeTime = deterministicTime, deterministicTime, deterministicTime
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

// deterministicTime stamps every entry of a tar made here.
var deterministicTime = time.Unix(0, 0).UTC()

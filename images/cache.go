package images

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound is an image name or id the cache does not hold.
var ErrNotFound = errors.New("image not found")

// Image is one entry of the cache.
type Image struct {
	// ID is "sha256:" and the hex digest that names the image.
	ID string `json:"id"`
	// Names are the names given at import or build.
	Names []string `json:"names,omitempty"`
	// Source says where it came from ("docker-save /x.tar", "from-host sh cat").
	Source  string    `json:"source"`
	Created time.Time `json:"created"`
	// Rootfs is the extracted root filesystem (read-only by convention).
	Rootfs string `json:"rootfs"`
}

// Cache is a directory of images: DIR/<hex>/rootfs and DIR/<hex>/image.json.
type Cache struct{ Dir string }

// DefaultDir is where images live: $GOLEM_BOX_IMAGES, else
// /var/lib/golem-box/images for root, else ~/.local/share/golem-box/images.
func DefaultDir() string {
	if d := os.Getenv("GOLEM_BOX_IMAGES"); d != "" {
		return d
	}
	if os.Getuid() == 0 {
		return "/var/lib/golem-box/images"
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local/share/golem-box/images")
	}
	return filepath.Join(os.TempDir(), "golem-box-images-"+strconv.Itoa(os.Getuid()))
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]{0,127}(:[A-Za-z0-9._-]{1,128})?$`)

// add extracts a tar stream into the cache under id (or, when id is empty,
// the sha256 of the stream) and records its name. An image already in the
// cache is not extracted again.
func (c *Cache) add(stream io.Reader, id, name, source string) (*Image, error) {
	if name != "" && !nameRe.MatchString(name) {
		return nil, fmt.Errorf("image name %q: use lower-case letters, digits, '.', '_', '-', '/' and an optional :tag", name)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(c.Dir, ".import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rootfs := filepath.Join(tmp, "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		return nil, err
	}
	h := sha256.New()
	if err := extract(io.TeeReader(stream, h), rootfs); err != nil {
		return nil, err
	}
	_, _ = io.Copy(h, stream) // hash any trailing padding too, for a stable id
	if id == "" {
		id = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	hexID := strings.TrimPrefix(id, "sha256:")
	final := filepath.Join(c.Dir, hexID)
	img := &Image{ID: id, Source: source, Created: time.Now().UTC().Truncate(time.Second), Rootfs: filepath.Join(final, "rootfs")}
	if old, err := c.read(hexID); err == nil {
		img = old // same content: keep the tree, add the name
	} else if err := os.Rename(tmp, final); err != nil {
		return nil, err
	} // once renamed, the deferred RemoveAll(tmp) finds nothing
	if name != "" {
		if err := c.untag(name); err != nil {
			return nil, err
		}
		if !slices.Contains(img.Names, name) {
			img.Names = append(img.Names, name)
		}
	}
	return img, c.write(img)
}

func (c *Cache) read(hexID string) (*Image, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, hexID, "image.json"))
	if err != nil {
		return nil, err
	}
	var img Image
	if err := json.Unmarshal(data, &img); err != nil {
		return nil, fmt.Errorf("%s: %w", hexID, err)
	}
	return &img, nil
}

func (c *Cache) write(img *Image) error {
	data, err := json.MarshalIndent(img, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(c.Dir, strings.TrimPrefix(img.ID, "sha256:"), "image.json")
	if err := os.WriteFile(p+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(p+".tmp", p)
}

// untag removes name from whichever image holds it.
func (c *Cache) untag(name string) error {
	all, err := c.List()
	if err != nil {
		return err
	}
	for _, img := range all {
		if i := slices.Index(img.Names, name); i >= 0 {
			img.Names = slices.Delete(img.Names, i, i+1)
			if err := c.write(&img); err != nil {
				return err
			}
		}
	}
	return nil
}

// List returns the cached images, newest first.
func (c *Cache) List() ([]Image, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Image
	for _, de := range des {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if img, err := c.read(de.Name()); err == nil {
			out = append(out, *img)
		}
	}
	slices.SortFunc(out, func(a, b Image) int { return b.Created.Compare(a.Created) })
	return out, nil
}

// Get finds an image by name, full id, or an unambiguous id prefix (of at
// least 4 hex digits).
func (c *Cache) Get(ref string) (*Image, error) {
	all, err := c.List()
	if err != nil {
		return nil, err
	}
	var hits []Image
	for _, img := range all {
		hexID := strings.TrimPrefix(img.ID, "sha256:")
		p := strings.TrimPrefix(ref, "sha256:")
		if slices.Contains(img.Names, ref) || (len(p) >= 4 && strings.HasPrefix(hexID, p)) {
			hits = append(hits, img)
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("%w: %q is not in %s (golem-box image ls lists them; image import or image build adds one)", ErrNotFound, ref, c.Dir)
	case 1:
		return &hits[0], nil
	}
	return nil, fmt.Errorf("image %q is ambiguous: give more of the id", ref)
}

// Remove deletes an image and its root filesystem.
func (c *Cache) Remove(ref string) (*Image, error) {
	img, err := c.Get(ref)
	if err != nil {
		return nil, err
	}
	return img, os.RemoveAll(filepath.Join(c.Dir, strings.TrimPrefix(img.ID, "sha256:")))
}

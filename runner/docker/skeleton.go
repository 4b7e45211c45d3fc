package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/moby/moby/client"
)

// SkeletonRepo names the skeleton images; the tag is a digest of their
// content.
const SkeletonRepo = "golem-box-skeleton"

// skeletonLayer is the tar of the skeleton's only layer: the directories
// the engine mounts over, and the symbolic links of the root.
func skeletonLayer(links map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, d := range []struct {
		name string
		mode int64
	}{{"dev", 0o755}, {"etc", 0o755}, {"proc", 0o555}, {"sys", 0o555}, {"tmp", 0o1777}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name + "/", Mode: d.mode, ModTime: epoch}); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(links))
	for n := range links {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: n, Linkname: links[n], Mode: 0o777, ModTime: epoch}); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// SkeletonTag names the skeleton image a sandbox whose root has these
// top-level symbolic links runs on (make bench uses it for the raw
// `docker run` baseline).
func SkeletonTag(links map[string]string) (string, error) {
	layer, err := skeletonLayer(links)
	if err != nil {
		return "", err
	}
	return skeletonTag(layer), nil
}

// skeletonTag names the skeleton image for a set of links.
func skeletonTag(layer []byte) string {
	sum := sha256.Sum256(layer)
	return SkeletonRepo + ":" + hex.EncodeToString(sum[:])[:16]
}

// ensureSkeleton returns the skeleton image for links, building and
// loading it into the engine the first time.
func (b *Backend) ensureSkeleton(ctx context.Context, cli *client.Client, links map[string]string) (string, error) {
	layer, err := skeletonLayer(links)
	if err != nil {
		return "", err
	}
	tag := skeletonTag(layer)
	b.mu.Lock()
	known := b.skeletons[tag]
	b.mu.Unlock()
	if known {
		return tag, nil
	}
	if _, err := cli.ImageInspect(ctx, tag); err == nil {
		b.remember(tag)
		return tag, nil
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layer)), nil })
	if err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		return "", err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Created = v1.Time{Time: time.Unix(0, 0)}
	cf.Config.Labels = map[string]string{"io.golem-box.skeleton": "1"}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return "", err
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return "", err
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarball.Write(ref, img, pw)) }()
	res, err := cli.ImageLoad(ctx, pr, client.ImageLoadWithQuiet(true))
	if err != nil {
		pr.CloseWithError(err)
		return "", fmt.Errorf("docker: load the skeleton image %s: %w", tag, err)
	}
	_, _ = io.Copy(io.Discard, res)
	res.Close()
	if _, err := cli.ImageInspect(ctx, tag); err != nil {
		return "", fmt.Errorf("docker: the skeleton image %s is not there after loading it: %w", tag, err)
	}
	b.remember(tag)
	return tag, nil
}

func (b *Backend) remember(tag string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.skeletons[tag] = true
}

package oci

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Write creates the bundle in dir, which must be empty or absent:
// config.json, the empty golem-box root filesystem with its symbolic links,
// and the /etc that golem-box provides.
func (b *Bundle) Write(dir string) error {
	for _, d := range []string{dir, filepath.Join(dir, "rootfs"), filepath.Join(dir, "etc")} {
		var err error
		if b.RootfsLink != "" && d == filepath.Join(dir, "rootfs") {
			err = os.Symlink(b.RootfsLink, d)
		} else {
			err = os.Mkdir(d, 0o755)
		}
		if err != nil && !(d == dir && os.IsExist(err)) {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	for name, target := range b.Symlinks {
		if err := os.Symlink(target, filepath.Join(dir, "rootfs", name)); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	names := make([]string, 0, len(b.EtcFiles))
	for n := range b.EtcFiles {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, "etc", strings.TrimSuffix(n, "/"))
		var err error
		if strings.HasSuffix(n, "/") {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte(b.EtcFiles[n]), 0o644)
		}
		if err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
	}
	data, err := b.JSON()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600)
}

// JSON is config.json, indented and deterministic.
func (b *Bundle) JSON() ([]byte, error) {
	data, err := json.MarshalIndent(b.Spec, "", "\t")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

package runstate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Prefix starts every id golem-box gives a container.
const Prefix = "gb-"

// DefaultDir is where bundles live unless a backend is told otherwise:
// $GOLEM_BOX_STATE_DIR when set, else /run/golem-box for root, else
// $XDG_RUNTIME_DIR/golem-box, else a per-user directory in the temp dir.
func DefaultDir() string {
	if d := os.Getenv("GOLEM_BOX_STATE_DIR"); d != "" {
		return d
	}
	if os.Getuid() == 0 {
		return "/run/golem-box"
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "golem-box")
	}
	return filepath.Join(os.TempDir(), "golem-box-"+strconv.Itoa(os.Getuid()))
}

// NewID is a fresh container id: Prefix and 12 hex digits.
func NewID() (string, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return Prefix + hex.EncodeToString(r[:]), nil
}

// OwnerStamp identifies this process: its pid and start time, so that a
// recycled pid is not mistaken for the owner.
func OwnerStamp() string {
	return strconv.Itoa(os.Getpid()) + " " + procStart(os.Getpid())
}

// OwnerAlive says whether the process a stamp names is still running.
func OwnerAlive(stamp string) bool {
	f := strings.Fields(stamp)
	if len(f) != 2 {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	return err == nil && pid > 0 && procStart(pid) == f[1]
}

func procStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// Field 22 (starttime) follows the command name in parentheses.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		if len(f) > 19 {
			return f[19]
		}
	}
	return ""
}

// Bundles is a directory of per-run bundle directories, each named by the
// run's id and holding an owner file written before anything else.
type Bundles struct{ Dir string }

// Create makes the bundle directory of id with its owner file, so that a
// bundle is never seen without one.
func (bs Bundles) Create(id string) (string, error) {
	if err := os.MkdirAll(bs.Dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	dir := filepath.Join(bs.Dir, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owner"), []byte(OwnerStamp()), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("state directory: %w", err)
	}
	return dir, nil
}

// Alive says whether the bundle's owner is still running.
func (bs Bundles) Alive(id string) bool {
	data, err := os.ReadFile(filepath.Join(bs.Dir, id, "owner"))
	return err == nil && OwnerAlive(string(data))
}

// Exists says whether the bundle of id is there.
func (bs Bundles) Exists(id string) bool {
	_, err := os.Lstat(filepath.Join(bs.Dir, id))
	return err == nil
}

// Leftovers lists the bundles whose owner is gone.
func (bs Bundles) Leftovers() ([]string, error) {
	des, err := os.ReadDir(bs.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, de := range des {
		if !bs.Alive(de.Name()) {
			out = append(out, de.Name())
		}
	}
	return out, nil
}

// Remove deletes the bundle of id.
func (bs Bundles) Remove(id string) error {
	return os.RemoveAll(filepath.Join(bs.Dir, id))
}

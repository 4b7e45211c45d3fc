package docker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	compile "github.com/golem-box/golem-box/oci"
	"github.com/moby/moby/api/types/mount"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func compiled(t *testing.T, network bool) *specs.Spec {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"root/src", "in"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	sb := &mountspec.Sandbox{Root: filepath.Join(dir, "root"), ReadOnly: true,
		Mounts:  []mountspec.Mount{{Source: filepath.Join(dir, "in"), Target: "/in", ReadOnly: true}},
		Network: mountspec.Network{Enabled: network},
		Limits:  mountspec.Limits{Memory: 64 << 20, PIDs: 30, CPUs: 1.5}}
	require.NoError(t, sb.Validate())
	b, err := compile.Compile(context.Background(), sb, compile.Options{Args: []string{"true"}, UID: 1000, GID: 1000,
		BundleDir: filepath.Join(dir, "bundle"), ID: "gb-test"})
	require.NoError(t, err)
	return b.Spec
}

func TestTranslate(t *testing.T) {
	s := compiled(t, false)
	cfg, hc, err := translate(s, "skel", map[string]string{LabelRun: "gb-test"}, engineFeatures{})
	require.NoError(t, err)
	assert.Equal(t, []string{"true"}, cfg.Cmd)
	assert.Equal(t, "1000:1000", cfg.User)
	assert.Equal(t, "golem-box", cfg.Hostname)
	assert.Equal(t, "none", string(hc.NetworkMode))
	assert.True(t, cfg.NetworkDisabled, "no network sandbox from the engine: the runtime's fresh namespace")
	assert.Equal(t, []string{"ALL"}, hc.CapDrop)
	assert.True(t, hc.ReadonlyRootfs)
	assert.Equal(t, "none", hc.LogConfig.Type, "the engine must not store untrusted output")
	assert.False(t, hc.Privileged)
	assert.EqualValues(t, 64<<20, hc.Memory)
	assert.EqualValues(t, 64<<20, hc.MemorySwap)
	assert.EqualValues(t, 30, *hc.PidsLimit)
	assert.EqualValues(t, 1_500_000_000, hc.NanoCPUs)
	assert.Contains(t, hc.SecurityOpt, "no-new-privileges")
	var seccomp *specs.LinuxSeccomp
	for _, o := range hc.SecurityOpt {
		if p, ok := strings.CutPrefix(o, "seccomp="); ok {
			require.NoError(t, json.Unmarshal([]byte(p), &seccomp))
		}
	}
	require.NotNil(t, seccomp, "golem-box's own profile, not the engine's default")
	assert.Equal(t, specs.ActErrno, seccomp.DefaultAction)
	assert.Contains(t, hc.Tmpfs["/tmp"], "size=")
	assert.Equal(t, s.Linux.MaskedPaths, hc.MaskedPaths)
	byTarget := map[string]mount.Mount{}
	for _, m := range hc.Mounts {
		byTarget[m.Target] = m
		assert.Equal(t, mount.TypeBind, m.Type)
		assert.Equal(t, mount.PropagationRPrivate, m.BindOptions.Propagation)
	}
	assert.True(t, byTarget["/in"].ReadOnly)
	assert.True(t, byTarget["/src"].ReadOnly, "the read-only root's entries")
	assert.True(t, byTarget["/usr"].ReadOnly, "the host OS")
	assert.False(t, byTarget["/usr"].BindOptions.ReadOnlyNonRecursive, "API 1.41 knows no such option")

	cfg, hc, err = translate(compiled(t, true), "skel", nil, engineFeatures{})
	require.NoError(t, err)
	assert.Equal(t, "default", string(hc.NetworkMode))
	assert.False(t, cfg.NetworkDisabled)
}

func TestTranslateRecursiveReadOnly(t *testing.T) {
	s := compiled(t, false)
	for i, m := range s.Mounts {
		if m.Destination == "/in" {
			s.Mounts[i].Options = []string{"rbind", "rprivate", "rro"}
		}
	}
	_, _, err := translate(s, "skel", nil, engineFeatures{})
	assert.ErrorContains(t, err, "recursive read-only needs engine API 1.44")
	_, hc, err := translate(s, "skel", nil, engineFeatures{RecursiveReadOnly: true})
	require.NoError(t, err)
	for _, m := range hc.Mounts {
		if m.Target == "/in" {
			assert.True(t, m.ReadOnly)
			assert.True(t, m.BindOptions.ReadOnlyForceRecursive)
		}
	}
}

// A rule the translation does not know is an error, never dropped.
func TestTranslateFailsClosed(t *testing.T) {
	for name, edit := range map[string]func(s *specs.Spec){
		"capability": func(s *specs.Spec) { s.Process.Capabilities.Bounding = []string{"CAP_NET_RAW"} },
		"mount type": func(s *specs.Spec) {
			s.Mounts = append(s.Mounts, specs.Mount{Destination: "/x", Type: "overlay", Source: "overlay"})
		},
		"mount option": func(s *specs.Spec) {
			s.Mounts = append(s.Mounts, specs.Mount{Destination: "/x", Type: "bind", Source: "/tmp", Options: []string{"rbind", "rshared"}})
		},
		"namespace path": func(s *specs.Spec) {
			s.Linux.Namespaces = append(s.Linux.Namespaces, specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: "/proc/1/ns/net"})
		},
		"device": func(s *specs.Spec) {
			major := int64(10)
			s.Linux.Resources.Devices = append(s.Linux.Resources.Devices, specs.LinuxDeviceCgroup{Allow: true, Type: "c", Major: &major, Access: "rwm"})
		},
		"no seccomp": func(s *specs.Spec) { s.Linux.Seccomp = nil },
		"terminal":   func(s *specs.Spec) { s.Process.Terminal = true },
		"rlimit":     func(s *specs.Spec) { s.Process.Rlimits = append(s.Process.Rlimits, specs.POSIXRlimit{Type: "NOFILE"}) },
	} {
		t.Run(name, func(t *testing.T) {
			s := compiled(t, false)
			edit(s)
			_, _, err := translate(s, "skel", nil, engineFeatures{})
			assert.Error(t, err)
		})
	}
}

func TestSkeletonTagFollowsContent(t *testing.T) {
	a, err := skeletonLayer(nil)
	require.NoError(t, err)
	b, err := skeletonLayer(map[string]string{"data": "/mnt/data"})
	require.NoError(t, err)
	a2, err := skeletonLayer(map[string]string{})
	require.NoError(t, err)
	assert.Equal(t, skeletonTag(a), skeletonTag(a2), "the same content is the same image")
	assert.NotEqual(t, skeletonTag(a), skeletonTag(b))
	assert.True(t, strings.HasPrefix(skeletonTag(a), SkeletonRepo+":"))
}

func TestAPIAtLeast(t *testing.T) {
	assert.True(t, apiAtLeast("1.44", 1, 44))
	assert.True(t, apiAtLeast("1.52", 1, 44))
	assert.True(t, apiAtLeast("2.0", 1, 44))
	assert.False(t, apiAtLeast("1.41", 1, 44))
	assert.False(t, apiAtLeast("", 1, 44))
}

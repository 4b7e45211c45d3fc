package mountspec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMountFlag(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	for _, tc := range []struct {
		in   string
		want Mount
		err  string
	}{
		{in: "type=bind,source=/a,target=/b,readonly", want: Mount{Source: "/a", Target: "/b", ReadOnly: true}},
		{in: "type=bind,src=/a,dst=/b", want: Mount{Source: "/a", Target: "/b"}},
		{in: "type=bind,source=/a,destination=/b,ro", want: Mount{Source: "/a", Target: "/b", ReadOnly: true}},
		{in: "type=bind,source=/a,target=/b,readonly=false", want: Mount{Source: "/a", Target: "/b"}},
		{in: "type=bind,source=/a,target=/b,readonly=true", want: Mount{Source: "/a", Target: "/b", ReadOnly: true}},
		{in: "type=bind,source=/a,target=/b,ro=1", want: Mount{Source: "/a", Target: "/b", ReadOnly: true}},
		{in: `type=bind,"source=/a,b",target=/b`, want: Mount{Source: "/a,b", Target: "/b"}},
		{in: "source=./x,target=/b,name=data", want: Mount{Source: filepath.Join(wd, "x"), Target: "/b", Name: "data"}},
		{in: "type=bind,source=/a,target=/b,consistency=cached", want: Mount{Source: "/a", Target: "/b"}},
		{in: "type=bind,source=/a,target=/b,bind-propagation=shared", err: "bind-propagation is not supported"},
		{in: "type=bind,source=/a,target=/b,bind-recursive=disabled", err: "bind-recursive is not supported"},
		{in: "type=volume,source=v,target=/b", err: "type=volume is not supported"},
		{in: "type=tmpfs,target=/b", err: "type=tmpfs is not supported"},
		{in: "type=weird,target=/b", err: `unknown type "weird"`},
		{in: "type=bind,source=/a,target=/b,volume-nocopy", err: "only applies to other mount types"},
		{in: "type=bind,source=/a,target=/b,color=red", err: `unknown key "color"`},
		{in: "type=bind,target=/b", err: "source is missing"},
		{in: "type=bind,source=/a", err: "target is missing"},
		{in: "type=bind,source=/a,src=/c,target=/b", err: "source is given twice"},
		{in: "type=bind,source=/a,target=/b,readonly=maybe", err: "not a boolean"},
		{in: "", err: "cannot split"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			m, err := ParseMountFlag(tc.in)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidConfig)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), "--mount", "the error names the flag")
				assert.Contains(t, err.Error(), "fix:")
				return
			}
			require.NoError(t, err)
			m.from = ""
			assert.Equal(t, tc.want, m)
		})
	}
}

func TestParseVolumeFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mount
		err  string
	}{
		{in: "/a:/b", want: Mount{Source: "/a", Target: "/b"}},
		{in: "/a:/b:ro", want: Mount{Source: "/a", Target: "/b", ReadOnly: true}},
		{in: "/a:/b:rw", want: Mount{Source: "/a", Target: "/b"}},
		{in: "/a:/b:ro,rw", err: "both ro and rw"},
		{in: "/a:/b:Z", err: "SELinux"},
		{in: "/a:/b:rshared", err: "propagation"},
		{in: "/a:/b:nocopy", err: "nocopy"},
		{in: "/a:/b:fast", err: `unknown option "fast"`},
		{in: "myvol:/b", err: "named volume"},
		{in: "/b", err: "expected SOURCE:TARGET"},
		{in: "/a:/b:ro:x", err: "expected SOURCE:TARGET"},
		{in: ":/b", err: "must both be given"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			m, err := ParseVolumeFlag(tc.in)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidConfig)
				assert.Contains(t, err.Error(), tc.err)
				assert.Contains(t, err.Error(), "-v ")
				return
			}
			require.NoError(t, err)
			m.from = ""
			assert.Equal(t, tc.want, m)
		})
	}
}

func TestFlagMountErrorsNameTheFlag(t *testing.T) {
	m, err := ParseVolumeFlag("/surely/missing/dir:cache")
	require.NoError(t, err)
	s := Sandbox{Mounts: []Mount{m}}
	err = s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `-v "/surely/missing/dir:cache".target: must be absolute`)
	assert.Contains(t, err.Error(), `-v "/surely/missing/dir:cache".source: /surely/missing/dir does not exist`)
}

package audit

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDetectsTheFormatByContent(t *testing.T) {
	for _, c := range []struct {
		name, input string
		want        []Format
	}{
		{"oci", `{"ociVersion": "1.0.2", "process": {"cwd": "/"}}`, []Format{FormatOCI}},
		{"oci without version", `{"process": {"cwd": "/"}, "root": {"path": "rootfs"}}`, []Format{FormatOCI}},
		{"docker object", `{"Id": "abc", "Config": {}, "HostConfig": {}}`, []Format{FormatDocker}},
		{"docker array", `[{"Id": "a", "HostConfig": {}}, {"Id": "b", "HostConfig": {"Privileged": true}}]`, []Format{FormatDocker, FormatDocker}},
		{"mixed array", `[{"ociVersion": "1.0.2"}, {"HostConfig": {}}]`, []Format{FormatOCI, FormatDocker}},
	} {
		t.Run(c.name, func(t *testing.T) {
			subjects, err := Parse("in.json", []byte(c.input))
			require.NoError(t, err)
			var got []Format
			for _, s := range subjects {
				got = append(got, s.Format)
			}
			assert.Equal(t, c.want, got)
			if len(subjects) > 1 {
				assert.Equal(t, "in.json[1]", subjects[1].Target)
			}
		})
	}
}

func TestParseErrorsNameTheFileAndPosition(t *testing.T) {
	for _, c := range []struct {
		name, input    string
		line, col      int
		reasonContains string
	}{
		{"syntax", "{\n  \"ociVersion\": \"1.0.2\",\n  \"process\": {\"cwd\": \"/\",}\n}", 3, 26, "invalid character '}'"},
		{"truncated", "{\n  \"ociVersion\": \"1.0.2\",\n  \"process\": {\n", 4, 1, "ends in the middle"},
		{"wrong type", "{\n  \"ociVersion\": \"1.0.2\",\n  \"process\": {\"user\": {\"uid\": \"root\"}}\n}", 3, 37, "process.user.uid: expected uint32, got a JSON string"},
		{"wrong type in array", "[\n{\"HostConfig\": {}},\n{\"HostConfig\": {\"Privileged\": \"yes\"}}\n]", 3, 36, "HostConfig.Privileged: expected bool"},
		{"trailing data", "{\"ociVersion\": \"1.0.2\"}\n{}", 2, 1, "after top-level value"},
		{"empty", "  \n", 0, 0, "empty input"},
		{"not an object", `"hello"`, 0, 0, "expected a JSON object, got a string"},
		{"empty array", `[]`, 0, 0, "docker inspect found no container"},
		{"unknown document", `{"apiVersion": "v1", "kind": "Pod"}`, 0, 0, "neither an OCI config.json"},
		{"bad device rule", `{"HostConfig": {"DeviceCgroupRules": ["c 1-3 rwm"]}}`, 0, 0, "HostConfig.DeviceCgroupRules[0]: \"c 1-3 rwm\": MAJOR:MINOR"},
		{"bad seccomp", `{"HostConfig": {"SecurityOpt": ["seccomp={not json"]}}`, 0, 0, "HostConfig.SecurityOpt: the seccomp profile is not valid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("spec.json", []byte(c.input))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInput))
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, "spec.json", strings.SplitN(ie.Target, "[", 2)[0])
			assert.Equal(t, c.line, ie.Line, "line")
			assert.Equal(t, c.col, ie.Column, "column")
			assert.Contains(t, ie.Reason, c.reasonContains)
			if c.line > 0 {
				assert.Contains(t, err.Error(), "spec.json")
			}
		})
	}
}

func TestReadIsBounded(t *testing.T) {
	big := bytes.Repeat([]byte(" "), MaxInputBytes+1)
	_, err := Read("huge.json", bytes.NewReader(big))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "huge.json: larger than 32 MiB")
}

func TestDockerCapabilitiesFollowTheEngine(t *testing.T) {
	for _, c := range []struct {
		name     string
		hc       string
		has, not []string
	}{
		{"default", `{}`, []string{"CHOWN", "NET_RAW", "MKNOD"}, []string{"SYS_ADMIN"}},
		{"drop all add one", `{"CapDrop": ["ALL"], "CapAdd": ["NET_BIND_SERVICE"]}`, []string{"NET_BIND_SERVICE"}, []string{"CHOWN", "NET_RAW"}},
		{"prefix and case", `{"CapAdd": ["cap_sys_admin"], "CapDrop": ["CAP_NET_RAW"]}`, []string{"SYS_ADMIN", "CHOWN"}, []string{"NET_RAW"}},
		{"add all as a string", `{"CapAdd": "ALL"}`, AllCaps, nil},
		{"privileged", `{"Privileged": true, "CapDrop": ["ALL"]}`, AllCaps, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			subjects, err := Parse("x", []byte(`{"HostConfig": `+c.hc+`}`))
			require.NoError(t, err)
			caps := subjects[0].Caps
			for _, x := range c.has {
				assert.True(t, caps.has(x), x)
			}
			for _, x := range c.not {
				assert.False(t, caps.has(x), x)
			}
		})
	}
}

func TestDockerUser(t *testing.T) {
	for in, want := range map[string]struct {
		uid   uint32
		known bool
	}{"": {0, true}, "root": {0, true}, "0:0": {0, true}, "1000": {1000, true}, "1000:1000": {1000, true}, "app": {0, false}, "app:app": {0, false}} {
		uid, known := dockerUser(in)
		assert.Equal(t, want.uid, uid, in)
		assert.Equal(t, want.known, known, in)
	}
}

// TestFindingsCarryTheirLine points each finding at the line of its field,
// or of the nearest parent present, in the file as written.
func TestFindingsCarryTheirLine(t *testing.T) {
	for _, c := range []struct {
		file, rule, lineHas string
	}{
		{"docker-privileged", "GB101", `"Privileged": true`},
		{"docker-inspect-array", "GB201", `"NetworkMode": "host"`},
		{"oci-no-seccomp", "GB401", `"linux": {`},
		{"oci-sysctls", "GB701", `"kernel.core_pattern"`},
		{"oci-host-root-bind", "GB301", `"destination": "/host"`},
		{"oci-hooks", "GB802", `"hooks": {`},
		{"docker-ports-restart-env-cwd", "GB805", `"DB_PASSWORD=hunter2"`},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/corpus/" + c.file + ".json")
			require.NoError(t, err)
			subjects, err := Parse(c.file, data)
			require.NoError(t, err)
			lines := strings.Split(string(data), "\n")
			found := false
			for _, s := range subjects {
				for _, f := range Check(s) {
					if f.RuleID == c.rule {
						found = true
						require.Positive(t, f.Line)
						// An array element starts at its brace: look at the next line too.
						assert.Contains(t, lines[f.Line-1]+lines[f.Line], c.lineHas, "%s at %s", c.rule, f.Field)
					}
				}
			}
			assert.True(t, found, "%s must fire", c.rule)
		})
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func corpus(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../oci/audit/testdata/corpus", name+".json"))
	require.NoError(t, err)
	return p
}

func TestAuditFilesAndBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"ociVersion\": \"1.0.2\",\n  \"process\": {\"cwd\": \"/\",}\n}\n"), 0o644))
	r := gb(t, dir, "", "audit", corpus(t, "docker-privileged"), bad, filepath.Join(dir, "missing.json"), corpus(t, "clean-oci"))
	assert.Equal(t, 2, r.code, "an unreadable input makes the status 2: %s", r.stderr)
	// The readable ones are still audited.
	assert.Contains(t, r.stdout, "docker-privileged.json (audit-base)  [docker inspect]\n  CRITICAL  GB101  HostConfig.Privileged")
	assert.Contains(t, r.stdout, "clean-oci.json  [OCI config.json]\n  no findings")
	assert.Contains(t, r.stdout, "2 audited, 2 not readable")
	assert.Contains(t, r.stderr, "golem-box audit: "+bad+":3:26: not valid JSON: invalid character '}'")
	assert.Contains(t, r.stderr, "golem-box audit: "+filepath.Join(dir, "missing.json")+": no such file or directory")
	assert.NotContains(t, r.stdout, "\x1b[", "no colour when stdout is not a terminal")
}

func TestAuditFailOnAndIgnore(t *testing.T) {
	dir := t.TempDir()
	priv := corpus(t, "docker-privileged")
	assert.Equal(t, 0, gb(t, dir, "", "audit", priv).code, "no --fail-on: findings alone do not fail")
	assert.Equal(t, 1, gb(t, dir, "", "audit", "--fail-on", "critical", priv).code)
	assert.Equal(t, 0, gb(t, dir, "", "audit", "--fail-on", "critical", "--ignore", "privileged", priv).code)
	assert.Equal(t, 1, gb(t, dir, "", "audit", "--fail-on", "low", "--ignore", "privileged", priv).code, "GB205 is low")
	assert.Equal(t, 0, gb(t, dir, "", "audit", "--fail-on", "info", corpus(t, "clean-oci")).code)

	sup := filepath.Join(dir, "accepted.yaml")
	require.NoError(t, os.WriteFile(sup, []byte("suppress:\n  - rule: GB101\n    target: \"*privileged*\"\n    reason: a test fixture\n  - rule: no-user-namespace\n    reason: the daemon remaps users\n"), 0o644))
	r := gb(t, dir, "", "audit", "--fail-on", "info", "--suppressions", sup, priv)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "; 2 suppressed")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fail-on", "severe", priv}, "--fail-on: unknown severity \"severe\""},
		{[]string{"--ignore", "GB999", priv}, "--ignore GB999: no such rule"},
		{[]string{"-o", "yaml", priv}, "--output must be text, json or sarif"},
		{nil, "audit needs a FILE, - for stdin, or --container ID"},
		{[]string{"--suppressions", filepath.Join(dir, "none.yaml"), priv}, "none.yaml"},
	} {
		r := gb(t, dir, "", append([]string{"audit"}, c.args...)...)
		assert.Equal(t, 2, r.code, c.args)
		assert.Contains(t, r.stderr, c.want)
	}
	// sarif stays the audit's: other commands still accept text and json only.
	assert.Equal(t, 2, gb(t, dir, "", "doctor", "-o", "sarif").code)
}

func TestAuditStdinJSONAndSARIF(t *testing.T) {
	data, err := os.ReadFile(corpus(t, "docker-inspect-array"))
	require.NoError(t, err)
	r := gb(t, t.TempDir(), string(data), "audit", "-", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Results []struct {
			Target   string
			Findings []struct{ Rule string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Len(t, rep.Results, 2)
	assert.Equal(t, "-[1]", rep.Results[1].Target)
	assert.Equal(t, "GB201", rep.Results[1].Findings[0].Rule)

	r = gb(t, t.TempDir(), string(data), "audit", "-", "-o", "sarif")
	require.Equal(t, 0, r.code, r.stderr)
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &log))
	assert.Equal(t, "2.1.0", log.Version)
	require.NotEmpty(t, log.Runs[0].Results)
	assert.Equal(t, "stdin", log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)
}

// TestAuditContainer audits a container of the local engine by name.
func TestAuditContainer(t *testing.T) {
	const image = "golem-box-audit-empty:1"
	if exec.Command("docker", "image", "inspect", image).Run() != nil {
		imp := exec.Command("docker", "import", "-", image)
		imp.Stdin = strings.NewReader(string(make([]byte, 1024))) // an empty tar
		out, err := imp.CombinedOutput()
		require.NoError(t, err, "%s (the engine must run: scripts/setup)", out)
	}
	name := fmt.Sprintf("golem-box-cli-audit-%d", time.Now().UnixNano())
	out, err := exec.Command("docker", "create", "--name", name, "--privileged", "--network", "host", image, "/x").CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })

	r := gb(t, t.TempDir(), "", "audit", "--container", name, "--fail-on", "critical")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "container "+name+"  [docker inspect]\n  CRITICAL  GB101  HostConfig.Privileged")
	assert.Contains(t, r.stdout, "HIGH      GB201  HostConfig.NetworkMode")

	r = gb(t, t.TempDir(), "", "audit", "--container", name+"-gone")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "container "+name+"-gone: no such container on the engine")
}

// TestCompiledSpecsAuditClean pipes golem-box compile into golem-box audit
// for the README's example configuration and the demo's: nothing above low.
func TestCompiledSpecsAuditClean(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".cache/npm", "Downloads"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	example := string(readme)
	start := strings.Index(example, "```yaml\n# golem-box.yaml")
	require.GreaterOrEqual(t, start, 0, "the README's example configuration")
	example = example[start+len("```yaml\n"):]
	example = example[:strings.Index(example, "```")]

	demo := t.TempDir()
	for _, d := range []string{"downloads", "out"} {
		require.NoError(t, os.MkdirAll(filepath.Join(demo, d), 0o755))
	}
	configs := map[string]string{
		"readme":  example,
		"demo":    fmt.Sprintf("sandbox:\n  mounts:\n    - {source: %s/downloads, target: /in, readonly: true, name: downloads}\n    - {source: %s/out, target: /out, name: results}\n  network: false\n  files: {max_file_bytes: 1m}\n", demo, demo),
		"default": "sandbox:\n  root: .\n",
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			project := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(project, "downloads"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, "golem-box.yaml"), []byte(cfg), 0o644))
			cmd := exec.Command(binary, "compile", "--", "/bin/sh", "-c", "true")
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "HOME="+home)
			spec, err := cmd.Output()
			require.NoError(t, err)
			r := gb(t, project, string(spec), "audit", "-", "--fail-on", "medium")
			assert.Equal(t, 0, r.code, "golem-box's own spec has findings above low:\n%s", r.stdout)
			assert.Contains(t, r.stdout, " 0 critical, 0 high, 0 medium,")
		})
	}
}

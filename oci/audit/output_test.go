package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xeipuuv/gojsonschema"
)

// sampleReport audits a few corpus files, one of them partly suppressed,
// plus an input that cannot be read.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	rep := &Report{}
	opts := Options{Ignore: []string{"no-cpu-limit"}, Suppressions: []Suppression{{Rule: "GB501", Reason: "bounded by the CI runner's cgroup"}}}
	for _, f := range []string{"docker-default-run", "oci-privileged-equivalent", "docker-inspect-array", "clean-oci"} {
		data, err := os.ReadFile(filepath.Join("testdata/corpus", f+".json"))
		require.NoError(t, err)
		subjects, err := Parse(f+".json", data)
		require.NoError(t, err)
		rep.Add(opts, subjects...)
	}
	_, err := Parse("broken.json", []byte("{\n  \"ociVersion\": \"1.0.2\",\n  \"process\": {\n"))
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	rep.Errors = append(rep.Errors, ie)
	return rep
}

// sarifSchema is the OASIS SARIF 2.1.0 schema, read offline from the
// go-sarif module that embeds it, so the test validates the bytes written
// rather than the library's own structs.
func sarifSchema(t *testing.T) gojsonschema.JSONLoader {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "pkg/report/v210/sarif/schema.go"))
	require.NoError(t, err)
	start, end := bytes.IndexByte(src, '`'), bytes.LastIndexByte(src, '`')
	require.Greater(t, end, start)
	schema := src[start+1 : end]
	require.Contains(t, string(schema), "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema")
	return gojsonschema.NewBytesLoader(schema)
}

func TestSARIFValidatesAgainstTheSchema(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSARIF(&buf, sampleReport(t), "v0.3.0"))
	res, err := gojsonschema.Validate(sarifSchema(t), gojsonschema.NewBytesLoader(buf.Bytes()))
	require.NoError(t, err)
	for _, e := range res.Errors() {
		t.Errorf("SARIF schema: %s", e)
	}
	require.True(t, res.Valid())

	// What code-scanning tools read.
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text, Markdown string
						} `json:"help"`
						Properties map[string]any `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
					LogicalLocations []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
				Suppressions []struct {
					Kind, Justification string
				} `json:"suppressions"`
			} `json:"results"`
			Invocations []struct {
				ExecutionSuccessful        bool              `json:"executionSuccessful"`
				ToolExecutionNotifications []json.RawMessage `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &log))
	assert.Equal(t, "2.1.0", log.Version)
	require.Len(t, log.Runs, 1)
	run := log.Runs[0]
	assert.Len(t, run.Tool.Driver.Rules, len(Rules()))
	for _, r := range run.Tool.Driver.Rules {
		assert.NotEmpty(t, r.Help.Text, r.ID)
		assert.Contains(t, r.Help.Markdown, "**Fix:**", r.ID)
		assert.NotEmpty(t, r.Properties["security-severity"], r.ID)
	}
	require.NotEmpty(t, run.Results)
	uris := map[string]bool{}
	suppressed := 0
	for _, res := range run.Results {
		assert.Equal(t, res.RuleID, run.Tool.Driver.Rules[res.RuleIndex].ID)
		assert.Contains(t, []string{"error", "warning", "note"}, res.Level)
		assert.NotEmpty(t, res.Message.Text)
		require.Len(t, res.Locations, 1)
		uris[res.Locations[0].PhysicalLocation.ArtifactLocation.URI] = true
		assert.Positive(t, res.Locations[0].PhysicalLocation.Region.StartLine, "code scanning needs region.startLine")
		assert.NotEmpty(t, res.Locations[0].LogicalLocations[0].FullyQualifiedName)
		assert.NotEqual(t, "GB503", res.RuleID, "ignored rules are left out")
		if len(res.Suppressions) > 0 {
			suppressed++
			assert.Equal(t, "bounded by the CI runner's cgroup", res.Suppressions[0].Justification)
			assert.Equal(t, "GB501", res.RuleID)
		}
	}
	assert.Equal(t, 1, suppressed)
	assert.Equal(t, map[string]bool{"docker-default-run.json": true, "oci-privileged-equivalent.json": true, "docker-inspect-array.json": true}, uris)
	require.Len(t, run.Invocations, 1)
	assert.False(t, run.Invocations[0].ExecutionSuccessful, "an unreadable input makes the run unsuccessful")
	assert.Len(t, run.Invocations[0].ToolExecutionNotifications, 1)
}

func TestTextGroupsBySeverityWithoutColourUnlessAsked(t *testing.T) {
	rep := sampleReport(t)
	var plain, coloured bytes.Buffer
	require.NoError(t, WriteText(&plain, rep, false))
	require.NoError(t, WriteText(&coloured, rep, true))
	out := plain.String()
	assert.NotContains(t, out, "\x1b[", "no escape codes unless on a terminal")
	assert.Contains(t, coloured.String(), "\x1b[1;31mCRITICAL")
	// Within a target, severities come in order.
	block := out[strings.Index(out, "oci-privileged-equivalent.json"):]
	block = block[:strings.Index(block, "\n\n")]
	last := 6
	for _, line := range strings.Split(block, "\n")[1:] {
		sev, err := ParseSeverity(strings.Fields(line)[0])
		require.NoError(t, err, line)
		assert.LessOrEqual(t, sev.Rank(), last, "severity order in %q", line)
		last = sev.Rank()
	}
	assert.Contains(t, out, "clean-oci.json  [OCI config.json]\n  no findings")
	assert.Contains(t, out, "How to fix:\n")
	assert.Contains(t, out, "GB101 Privileged container: Remove --privileged")
	assert.Contains(t, out, "5 audited, 1 not readable:")
	assert.Contains(t, out, "; 1 suppressed; ignored GB503")
	assert.NotContains(t, out, "GB503  ")
}

func TestJSONReport(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, sampleReport(t)))
	var got struct {
		Results []Result `json:"results"`
		Errors  []struct {
			Target       string
			Line, Column int
			Error        string
		} `json:"errors"`
		Summary    map[string]int `json:"summary"`
		Suppressed int            `json:"suppressed"`
		Ignored    []string       `json:"ignored"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	require.Len(t, got.Results, 5)
	assert.Equal(t, "docker-inspect-array.json[1]", got.Results[3].Target)
	assert.Equal(t, "second", got.Results[3].Name)
	assert.Equal(t, FormatDocker, got.Results[3].Format)
	assert.Empty(t, got.Results[4].Findings)
	assert.NotNil(t, got.Results[4].Findings, "an empty list, not null")
	require.Len(t, got.Errors, 1)
	assert.Equal(t, "broken.json", got.Errors[0].Target)
	assert.Equal(t, 4, got.Errors[0].Line)
	assert.Equal(t, 5, got.Summary["critical"])
	assert.Equal(t, 1, got.Suppressed)
	assert.Equal(t, []string{"GB503"}, got.Ignored)
}

package audit

import (
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// InformationURI is where the rules are documented.
const InformationURI = "https://github.com/golem-box/golem-box/blob/main/docs/audit-rules.md"

// sarifLevel maps a severity to a SARIF level; code-scanning tools read the
// finer security-severity property (a CVSS-like score) of the rule.
func sarifLevel(s Severity) string {
	switch s {
	case Critical, High:
		return "error"
	case Medium:
		return "warning"
	}
	return "note"
}

var securitySeverity = map[Severity]string{Critical: "9.5", High: "8.0", Medium: "5.5", Low: "3.0", Info: "1.0"}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run, every rule
// with its help, and a location per finding: the input file (or container)
// and the field, as a logical location.
func WriteSARIF(w io.Writer, r *Report, toolVersion string) error {
	rep := sarif.NewReport()
	run := sarif.NewRunWithInformationURI("golem-box audit", InformationURI)
	run.Tool.Driver.WithVersion(toolVersion)
	for _, rule := range Rules() {
		props := sarif.NewPropertyBag().Add("security-severity", securitySeverity[rule.Severity]).
			Add("severity", string(rule.Severity)).Add("field", rule.Field)
		props.WithTags([]string{"security", "container"})
		run.AddRule(rule.ID).WithName(rule.Name).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(rule.Title)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(rule.Why)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(ruleHelpText(rule)).WithMarkdown(ruleHelpMarkdown(rule))).
			WithHelpURI(InformationURI + "#" + strings.ToLower(rule.ID)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(rule.Severity))).
			WithProperties(props)
	}
	for _, res := range r.Results {
		uri := artifactURI(res)
		run.AddDistinctArtifact(uri)
		for _, f := range res.Findings {
			// Code scanning places a result by its region's start line.
			line := max(f.Line, 1)
			loc := sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
				WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri)).
				WithRegion(sarif.NewRegion().WithStartLine(line)))
			ll := sarif.NewLogicalLocation().WithFullyQualifiedName(f.Field).WithKind("member")
			loc.AddLogicalLocation(ll)
			result := run.CreateResultForRule(f.RuleID).WithLevel(sarifLevel(f.Severity)).
				WithMessage(sarif.NewTextMessage(fmt.Sprintf("%s: %s", f.Title, f.Message))).
				AddLocation(loc).
				WithPartialFingerprints(map[string]string{"golemBoxFinding/v1": res.Target + "|" + f.RuleID + "|" + f.Field})
			if f.Suppressed != "" {
				result.AddSuppression(sarif.NewSuppression().WithKind("external").WithJustification(f.Suppressed).WithStatus("accepted"))
			}
		}
	}
	inv := sarif.NewInvocation().WithExecutionSuccessful(len(r.Errors) == 0)
	for _, e := range r.Errors {
		inv.AddToolExecutionNotification(sarif.NewNotification().WithLevel("error").
			WithMessage(sarif.NewTextMessage(e.Error())).
			AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
				WithArtifactLocation(sarif.NewSimpleArtifactLocation(artifactURI(Result{Target: e.Target}))))))
	}
	run.AddInvocation(inv)
	rep.AddRun(run)
	return rep.PrettyWrite(w)
}

// artifactURI names the input as SARIF wants it: a relative path as a
// relative reference (code scanning resolves it against the checkout), an
// absolute one as a file URI, stdin and containers by name.
func artifactURI(res Result) string {
	t := res.Target
	if i := strings.LastIndex(t, "["); i > 0 && strings.HasSuffix(t, "]") {
		t = t[:i] // one file holds the whole array
	}
	switch {
	case t == "-":
		return "stdin"
	case strings.HasPrefix(t, "container "):
		return "docker-container:" + url.PathEscape(strings.TrimPrefix(t, "container "))
	case path.IsAbs(t):
		return (&url.URL{Scheme: "file", Path: t}).String()
	}
	return (&url.URL{Path: t}).String()
}

func ruleHelpText(r *Rule) string {
	s := r.Why + "\n\nFix: " + r.Fix
	if len(r.Refs) > 0 {
		s += "\n\nReferences: " + strings.Join(r.Refs, ", ")
	}
	return s
}

func ruleHelpMarkdown(r *Rule) string {
	s := fmt.Sprintf("**%s** (%s, reads `%s`)\n\n%s\n\n**Fix:** %s", r.Title, r.Severity, r.Field, r.Why, r.Fix)
	if len(r.Refs) > 0 {
		s += "\n\n**References:** " + strings.Join(r.Refs, ", ")
	}
	return s
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/golem-box/golem-box/oci/audit"
	"github.com/golem-box/golem-box/runner/docker"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newAuditCmd(g *globals) *cobra.Command {
	var (
		containers   []string
		ignore       []string
		failOn       string
		suppressions string
		listRules    bool
	)
	cmd := &cobra.Command{
		Use:   "audit [FILE...] [--container ID...]",
		Short: "Report the risky settings of an OCI config.json or docker inspect output",
		Long: `Read OCI runtime specs (config.json) and docker inspect output (one object or
an array), detected by content, from files, - for stdin, or --container from
the Docker Engine, and report what weakens isolation: privileged settings,
capabilities, host namespaces, sensitive binds, missing seccomp, limits and
more (golem-box audit --list-rules). A file that cannot be read is reported
and the others are still audited.

Exit status: 0, or 1 when a finding that is not suppressed is at least as
severe as --fail-on, or 2 when an input could not be audited.`,
		Annotations: map[string]string{annotationOutputs: "text,json,sarif"},
		RunE: func(cmd *cobra.Command, files []string) error {
			out := cmd.OutOrStdout()
			if listRules {
				return printRules(out, g.output)
			}
			if len(files) == 0 && len(containers) == 0 {
				return usageError{errors.New("audit needs a FILE, - for stdin, or --container ID")}
			}
			var opts audit.Options
			opts.Ignore = splitList(ignore)
			if suppressions != "" {
				s, err := audit.LoadSuppressions(suppressions)
				if err != nil {
					return usageError{err}
				}
				opts.Suppressions = s
			}
			if err := opts.Validate(); err != nil {
				return usageError{err}
			}
			var min audit.Severity
			if failOn != "" {
				s, err := audit.ParseSeverity(failOn)
				if err != nil {
					return usageError{fmt.Errorf("--fail-on: %w", err)}
				}
				min = s
			}
			rep := &audit.Report{}
			for _, f := range files {
				subjects, err := readAuditFile(f, cmd.InOrStdin())
				rep.Add(opts, subjects...)
				addInputError(rep, f, err)
			}
			if len(containers) > 0 {
				b := docker.New()
				for _, id := range containers {
					target := "container " + id
					data, err := b.Inspect(cmd.Context(), id)
					var subjects []*audit.Subject
					if err == nil {
						subjects, err = audit.Read(target, bytes.NewReader(data))
					}
					rep.Add(opts, subjects...)
					addInputError(rep, target, err)
				}
			}
			var err error
			switch g.output {
			case "json":
				err = audit.WriteJSON(out, rep)
			case "sarif":
				err = audit.WriteSARIF(out, rep, version)
			default:
				err = audit.WriteText(out, rep, colourful(out))
			}
			if err != nil {
				return err
			}
			for _, e := range rep.Errors {
				fmt.Fprintln(cmd.ErrOrStderr(), "golem-box audit:", e)
			}
			switch {
			case len(rep.Errors) > 0:
				return exitError{exitUsage}
			case min != "" && rep.Fails(min):
				return exitError{exitFailed}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&containers, "container", nil, "audit a container of the Docker Engine by ID or name (repeatable)")
	f.StringArrayVar(&ignore, "ignore", nil, "skip a rule by ID or name (repeatable, or comma-separated)")
	f.StringVar(&failOn, "fail-on", "", "exit 1 when a finding is at least this severe: critical, high, medium, low or info")
	f.StringVar(&suppressions, "suppressions", "", "YAML file of accepted findings, each with rule, reason and an optional target pattern")
	f.BoolVar(&listRules, "list-rules", false, "print the rule table and exit")
	return cmd
}

// readAuditFile reads one input; "-" is stdin.
func readAuditFile(name string, stdin io.Reader) ([]*audit.Subject, error) {
	if name == "-" {
		return audit.Read("-", stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the target already names the file
		}
		return nil, &audit.InputError{Target: name, Reason: err.Error()}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &audit.InputError{Target: name, Reason: "is a directory: give its config.json"}
	}
	return audit.Read(name, f)
}

// addInputError records an input that could not be audited; the others
// still are.
func addInputError(rep *audit.Report, target string, err error) {
	if err == nil {
		return
	}
	var ie *audit.InputError
	if !errors.As(err, &ie) {
		ie = &audit.InputError{Target: target, Reason: err.Error()}
	}
	rep.Errors = append(rep.Errors, ie)
}

func splitList(in []string) []string {
	var out []string
	for _, s := range in {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// colourful reports whether w is a terminal that wants colour.
func colourful(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && term.IsTerminal(int(f.Fd()))
}

func printRules(w io.Writer, output string) error {
	if output == "json" {
		return printJSON(w, audit.Rules())
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tNAME\tTITLE")
	for _, r := range audit.Rules() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Name, r.Title)
	}
	return tw.Flush()
}

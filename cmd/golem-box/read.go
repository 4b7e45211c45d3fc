package main

import (
	"fmt"

	"github.com/golem-box/golem-box/sandbox"
	"github.com/spf13/cobra"
)

func newReadCmd(g *globals) *cobra.Command {
	var opt sandbox.ReadOptions
	var raw bool
	cmd := &cobra.Command{
		Use:   "read PATH",
		Short: "Read a file through the sandbox (a window of lines, or an image)",
		Args:  args(cobra.ExactArgs(1)),
		RunE: g.withFS(nil, func(cmd *cobra.Command, a []string, fsys *sandbox.FS) error {
			out := cmd.OutOrStdout()
			if raw {
				b, err := fsys.ReadFile(a[0])
				if err != nil {
					return err
				}
				_, err = out.Write(b)
				return err
			}
			r, err := fsys.Read(a[0], opt)
			if err != nil {
				return err
			}
			if g.json() {
				return printJSON(out, r)
			}
			switch r.Type {
			case sandbox.TypeImage:
				_, err = out.Write(r.Data)
				return err
			case sandbox.TypeBinary:
				fmt.Fprintf(cmd.ErrOrStderr(), "%s is a binary file (%s, %d bytes); use --raw for its bytes\n", r.Path, r.MIMEType, r.Bytes)
				return nil
			}
			fmt.Fprint(out, r.Text)
			if r.Truncated {
				fmt.Fprintf(cmd.ErrOrStderr(), "[truncated by %s: lines %d-%d of %d; continue with --offset %d]\n",
					r.TruncatedBy, r.StartLine, r.StartLine+r.OutputLines-1, r.TotalLines, r.StartLine+r.OutputLines)
			}
			return nil
		}),
	}
	cmd.Flags().IntVar(&opt.Offset, "offset", 0, "first line to show, counting from 1")
	cmd.Flags().IntVar(&opt.Limit, "limit", 0, fmt.Sprintf("number of lines (default %d)", sandbox.DefaultReadLines))
	cmd.Flags().IntVar(&opt.MaxBytes, "max-bytes", 0, fmt.Sprintf("cap on the text shown (default %d)", sandbox.DefaultReadBytes))
	cmd.Flags().BoolVar(&raw, "raw", false, "print the whole file's bytes")
	return cmd
}

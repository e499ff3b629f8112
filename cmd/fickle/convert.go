package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fickle-db/fickle/history"
)

func init() {
	commands["convert"] = command{
		summary: "convert a history between fickle's and other checkers' formats",
		run:     runConvert,
	}
}

// convertIn, convertOut and convertErr are swapped by tests.
var (
	convertIn  io.Reader = os.Stdin
	convertOut io.Writer = os.Stdout
	convertErr io.Writer = os.Stderr
)

// runConvert implements fickle convert [--from F] --to G [--elle-model M]
// IN OUT: it exits 0 on success, 2 on bad usage or unusable input (also a
// history that cannot be written as list-append, lacking version orders),
// 1 when writing fails.
func runConvert(args []string) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(convertErr)
	from := fs.String("from", "auto", "input format (auto-detected from the extension and content by default)")
	to := fs.String("to", "", "output format (required)")
	elleModel := fs.String("elle-model", "auto", "with --to elle, the Elle workload: rw-register or list-append\n(auto: list-append for histories imported from list-append, else rw-register)")
	fs.Usage = func() {
		fmt.Fprintf(convertErr, "usage: fickle convert [--from F] --to G [--elle-model M] IN OUT\n\n"+
			"IN is a file (gzip is read transparently), a directory of per-client logs,\n"+
			"or - for standard input;\n"+
			"OUT is a file, or - for standard output.\n\nreadable formats: %s\nwritable formats: %s\n\n",
			joinFormats(history.Formats), joinFormats(history.WriteFormats))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 2 || *to == "" {
		fs.Usage()
		return 2
	}
	in, out := fs.Arg(0), fs.Arg(1)
	ff, err := history.ParseFormat(*from)
	if err != nil {
		fmt.Fprintf(convertErr, "fickle convert: --from: %v\n", err)
		return 2
	}
	tf, err := history.ParseFormat(*to)
	if err != nil || tf == history.FormatAuto {
		if err == nil {
			err = errors.New("an output format is required")
		}
		fmt.Fprintf(convertErr, "fickle convert: --to: %v\n", err)
		return 2
	}
	writable := false
	for _, f := range history.WriteFormats {
		writable = writable || f == tf
	}
	if !writable {
		fmt.Fprintf(convertErr, "fickle convert: --to: cannot write format %s (writable: %s)\n", tf, joinFormats(history.WriteFormats))
		return 2
	}
	model, err := history.ParseElleModel(*elleModel)
	if err == nil && model != history.ElleAuto && tf != history.FormatElle {
		err = fmt.Errorf("applies to --to elle only, not %s", tf)
	}
	if err != nil {
		fmt.Fprintf(convertErr, "fickle convert: --elle-model: %v\n", err)
		return 2
	}
	var h *history.History
	if in == "-" {
		h, err = history.ReadDetect(convertIn, "stdin", ff)
	} else {
		h, err = history.Import(in, ff)
	}
	if err != nil {
		fmt.Fprintf(convertErr, "fickle convert: %v\n", err)
		return 2
	}
	if model == history.ElleListAppend {
		if err := history.CheckElleListAppend(h); err != nil {
			fmt.Fprintf(convertErr, "fickle convert: --elle-model list-append: %s: %v\n", in, err)
			return 2
		}
	}
	if err := writeConverted(h, tf, model, out); err != nil {
		fmt.Fprintf(convertErr, "fickle convert: %v\n", err)
		return 1
	}
	return 0
}

// writeConverted writes h in format f (for Elle, in the given model) to
// the file out, or to standard output for "-".
func writeConverted(h *history.History, f history.Format, model history.ElleModel, out string) error {
	export := func(w io.Writer) error {
		if f == history.FormatElle {
			return history.WriteElleEDNModel(w, h, model)
		}
		return history.Export(w, h, f)
	}
	if out == "-" {
		w := bufio.NewWriter(convertOut)
		if err := export(w); err != nil {
			return err
		}
		return w.Flush()
	}
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := export(file); err != nil {
		file.Close()
		return fmt.Errorf("%s: %v", out, err)
	}
	return file.Close()
}

func joinFormats(fs []history.Format) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += string(f)
	}
	return s
}

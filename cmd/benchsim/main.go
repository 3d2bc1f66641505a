// Command benchsim writes a synthetic benchmark sweep: a simulated vLLM-like
// server under a closed-loop streaming benchmark, recorded in benchnote's
// input layout (docs/input-format.md). Nothing it writes is a measurement;
// docs/simulator.md describes the model.
//
// Usage:
//
//	benchsim -o DIR [-seed N] [-requests N]
//
// The example sweep in runs/example is `go run ./cmd/benchsim -o runs/example`.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/benchnote/benchnote/internal/sim"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "benchsim:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	def := sim.DefaultConfig()
	fs := flag.NewFlagSet("benchsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "sweep directory to write (required)")
	seed := fs.Uint64("seed", def.Seed, "random seed; the same seed writes the same bytes")
	requests := fs.Int("requests", def.Levels[0].Requests,
		"requests per run at the first level; the others keep their ratio (default 240/400/600 at c1/c4/c16)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: benchsim -o DIR [-seed N] [-requests N]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("need -o DIR and no other arguments")
	}
	if *requests < 1 {
		return fmt.Errorf("-requests %d: must be at least 1", *requests)
	}
	cfg := def.WithRequests(*requests)
	cfg.Seed = *seed
	sw, err := sim.Generate(cfg)
	if err != nil {
		return err
	}
	if err := sw.Write(*out); err != nil {
		return err
	}
	for _, r := range sw.Runs {
		fmt.Fprintf(stdout, "%s\t%d requests\t%s\n", r.Dir(), len(r.Requests), r.Format)
	}
	fmt.Fprintf(stderr, "benchsim: wrote %d simulated runs to %s\n", len(sw.Runs), *out)
	return nil
}

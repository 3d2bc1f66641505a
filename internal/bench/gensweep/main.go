// Command gensweep writes the synthetic benchmark sweep of internal/bench/sweepgen.
//
//	go run ./internal/bench/gensweep -format parquet -rows 400000 -o /tmp/sweep-10M-parquet
//
// The default is the 10M-request sweep of docs/benchmarks.md: concurrency
// levels 1, 4, 16, 64 and 256, five runs each, 400,000 requests per run.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/internal/bench/sweepgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gensweep:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gensweep", flag.ContinueOnError)
	format := fs.String("format", "parquet", "parquet (zstd) or csv")
	rows := fs.Int("rows", 400_000, "requests per run")
	runs := fs.Int("runs", 5, "runs per level")
	levels := fs.String("levels", "1,4,16,64,256", "comma-separated concurrency levels")
	out := fs.String("o", "", "output directory (written unless it holds a complete copy)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-o DIR is required")
	}
	cfg := sweepgen.Config{Runs: *runs, Rows: *rows, Format: *format}
	for _, s := range strings.Split(*levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-levels: %q is not a positive integer", s)
		}
		cfg.Levels = append(cfg.Levels, n)
	}
	if _, err := sweepgen.Ensure(*out, cfg); err != nil {
		return err
	}
	fmt.Printf("%s: %d requests (%d levels × %d runs × %d)\n", *out, cfg.TotalRows(), len(cfg.Levels), cfg.Runs, cfg.Rows)
	return nil
}

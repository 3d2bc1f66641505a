// Command benchnote turns recorded LLM-serving benchmark runs into
// notebook-style reports.
//
//	benchnote validate [--json | -q] SWEEP
//	benchnote report SWEEP -o OUT [--notebook FILE]
//	benchnote help [COMMAND]
//	benchnote version
//
// Every command prints its usage with -h; docs/cli.md describes them all.
// The commands live in package cli, which main only calls.
package main

import (
	"os"

	"github.com/benchnote/benchnote/cmd/benchnote/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

package cli

import "io"

func runHistory(args []string, stdout, stderr io.Writer) int { return ExitErrors }

package cli

import "io"

func runArchive(args []string, stdout, stderr io.Writer) int { return ExitErrors }

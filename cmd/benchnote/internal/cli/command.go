package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/suggest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// A command is one entry of the command table (see commands): what the
// user types, how it is described, and how it runs.
type command struct {
	// name is what the user types after "benchnote".
	name string
	// summary is the one line "benchnote help" shows next to the name.
	summary string
	// args names the positional arguments in the synopsis, e.g. "SWEEP".
	args string
	// requiredFlags lists flags the command cannot run without, for the
	// synopsis, e.g. "-o OUT".
	requiredFlags string
	// minArgs and maxArgs bound the number of positional arguments;
	// maxArgs < 0 means no upper bound.
	minArgs, maxArgs int
	// help is the text "benchnote CMD -h" prints between the synopsis and
	// the flags: what the command does, what it writes, its exit codes.
	help string
	// flags defines the command's flags on fs and returns the function
	// that runs the command once they are parsed, with the positional
	// arguments (already counted against minArgs and maxArgs).
	flags func(fs *flag.FlagSet) func(c *call, args []string) int
	// errorExit, when not zero, replaces ExitErrors as the exit code of a
	// usage mistake or a failure (compare, a CI gate, exits 3 on those and
	// keeps 2 for "not comparable").
	errorExit int
}

// errorCode is the exit code of a usage mistake or a failure.
func (cmd *command) errorCode() int {
	if cmd.errorExit != 0 {
		return cmd.errorExit
	}
	return ExitErrors
}

// call is one invocation of a command: its streams and the machine it
// runs on. Commands print data on stdout and progress and errors on stderr.
type call struct {
	cmd            *command
	stdout, stderr io.Writer
	sys            system
	// shown is the progress reporter of the call, erased before an error
	// is printed so the error starts on a line of its own.
	shown *progress
}

// system is what a call needs from the machine, replaceable in tests.
type system struct {
	// now is the clock progress is timed by.
	now func() time.Time
	// isTerminal reports whether w is an interactive terminal.
	isTerminal func(w io.Writer) bool
	// redraw, when set, redraws live progress at this interval; zero draws
	// only when something changes (tests).
	redraw time.Duration
}

// fail prints err as the command's error and returns its error code.
func (c *call) fail(err error) int {
	if c.shown != nil {
		c.shown.close()
	}
	// The first line says which command; the others (a notebook's
	// problems, errors joined) follow it as they are.
	for i, line := range errorLines(err) {
		if i == 0 {
			fmt.Fprintf(c.stderr, "benchnote %s: ", c.cmd.name)
		}
		fmt.Fprintln(c.stderr, line)
	}
	return c.cmd.errorCode()
}

// errorLines is an error's text as lines to print: one per error an
// errors.Join holds, each with its control characters escaped, so a file
// name holding a newline can never start a line of its own.
func errorLines(err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range j.Unwrap() {
			if e != nil {
				lines = append(lines, errorLines(e)...)
			}
		}
		return lines
	}
	return []string{controls.Escape(err.Error())}
}

// usageError prints a usage mistake once, with a hint where the usage is,
// and returns the command's error code.
func (c *call) usageError(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "benchnote %s: %s\n", c.cmd.name, fmt.Sprintf(format, a...))
	fmt.Fprintf(c.stderr, "run 'benchnote %s -h' for usage\n", c.cmd.name)
	return c.cmd.errorCode()
}

// flagSet returns the command's flags and its run function.
func (cmd *command) flagSet() (*flag.FlagSet, func(*call, []string) int) {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	// The command prints its own errors and usage, each once.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var run func(*call, []string) int
	if cmd.flags != nil {
		run = cmd.flags(fs)
	}
	return fs, run
}

// invoke parses args and runs the command.
func (cmd *command) invoke(args []string, c *call) int {
	fs, run := cmd.flagSet()
	positional, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cmd.printUsage(c.stdout, fs)
		return ExitClean
	}
	if err != nil {
		return c.usageError("%s", flagError(err, fs))
	}
	if err := cmd.checkArgs(positional); err != nil {
		return c.usageError("%v", err)
	}
	return run(c, positional)
}

// flagError rewords the flag package's "flag provided but not defined"
// and suggests the nearest flag name.
func flagError(err error, fs *flag.FlagSet) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return msg
	}
	bad := dash(strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-"))
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg = "unknown flag " + bad
	name := strings.TrimLeft(bad, "-")
	if s := closest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", dash(s))
	} else if s := otherToolsName[name]; s != "" && fs.Lookup(s) != nil {
		msg += fmt.Sprintf(" (did you mean %s?)", dash(s))
	}
	return msg
}

// otherToolsName maps flag names other tools use for what a benchnote flag
// does, too far from its name for closest to find, to benchnote's.
var otherToolsName = map[string]string{
	"out": "o", "output": "o", "outdir": "o", "output-dir": "o", "out-dir": "o", "output_dir": "o",
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns the positional arguments. After
// "--" every argument is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) > 0 {
			positional = append(positional, rest[0])
			rest = rest[1:]
		}
		args = rest
	}
	return positional, nil
}

// checkArgs checks the number of positional arguments.
func (cmd *command) checkArgs(args []string) error {
	n := len(args)
	if n >= cmd.minArgs && (cmd.maxArgs < 0 || n <= cmd.maxArgs) {
		return nil
	}
	var want string
	switch {
	case cmd.maxArgs == 0:
		want = "no arguments"
	case cmd.minArgs == cmd.maxArgs:
		want = textfmt.Count(cmd.minArgs, "argument", "arguments")
	case cmd.maxArgs < 0:
		want = "at least " + textfmt.Count(cmd.minArgs, "argument", "arguments")
	case cmd.minArgs == 0:
		want = "at most " + textfmt.Count(cmd.maxArgs, "argument", "arguments")
	default:
		want = fmt.Sprintf("%d to %d arguments", cmd.minArgs, cmd.maxArgs)
	}
	if cmd.args != "" && cmd.maxArgs != 0 {
		want += " (" + cmd.args + ")"
	}
	got := "none"
	if n > 0 {
		quoted := make([]string, n)
		for i, a := range args {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		got = fmt.Sprintf("%d: %s", n, strings.Join(quoted, " "))
	}
	return fmt.Errorf("expected %s, got %s", want, got)
}

// synopsis is the command's one-line usage.
func (cmd *command) synopsis(fs *flag.FlagSet) string {
	s := "benchnote " + cmd.name
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		s += " [flags]"
	}
	if cmd.args != "" {
		s += " " + cmd.args
	}
	if cmd.requiredFlags != "" {
		s += " " + cmd.requiredFlags
	}
	return s
}

// printUsage writes the command's usage: synopsis, help text and flags.
func (cmd *command) printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n", cmd.synopsis(fs))
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(cmd.help, "\n"))
	}
	fmt.Fprintf(w, "\nflags:\n")
	printFlags(w, fs)
}

// printFlags lists the flags of fs, aliases (flags sharing one variable,
// like -q and --quiet) on one line, one-letter names with one dash and
// longer names with two (the parser accepts either), then -h, --help.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	type entry struct {
		names []string
		f     *flag.Flag
	}
	var entries []*entry
	fs.VisitAll(func(f *flag.Flag) {
		for _, e := range entries {
			if sameVariable(e.f.Value, f.Value) {
				e.names = append(e.names, f.Name)
				return
			}
		}
		entries = append(entries, &entry{names: []string{f.Name}, f: f})
	})
	for _, e := range entries {
		sort.Slice(e.names, func(i, j int) bool {
			if len(e.names[i]) != len(e.names[j]) {
				return len(e.names[i]) < len(e.names[j])
			}
			return e.names[i] < e.names[j]
		})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].names[0] < entries[j].names[0] })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range entries {
		dashed := make([]string, len(e.names))
		for i, n := range e.names {
			dashed[i] = dash(n)
		}
		arg, text := flag.UnquoteUsage(e.f)
		if isBool(e.f) {
			arg = ""
		}
		left := strings.Join(dashed, ", ")
		if arg != "" {
			left += " " + arg
		}
		// A usage text that states its default itself (one that depends
		// on the inputs) is not given a second one.
		if d := e.f.DefValue; d != "" && d != "false" && d != "0" && !strings.Contains(text, "(default") {
			text += fmt.Sprintf(" (default %s)", d)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", left, text)
	}
	fmt.Fprintf(tw, "  -h, --help\tprint this help and exit\n")
	tw.Flush()
}

// sameVariable reports whether two flag values set the same variable, as
// aliases defined with BoolVar(&v, "q", ...) and BoolVar(&v, "quiet", ...) do.
func sameVariable(a, b flag.Value) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && va.Type() == vb.Type() && va.Pointer() == vb.Pointer()
}

// dash spells a flag name as the usage shows it: -o, --notebook.
func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// isBool reports whether f is a boolean flag (given without a value).
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// outputFlags are the flags every command that reads a sweep shares.
type outputFlags struct {
	quiet, verbose bool
}

// addOutputFlags defines -q/--quiet and -v/--verbose on fs. quietText says
// what -q leaves of the command's output.
func addOutputFlags(fs *flag.FlagSet, quietText string) *outputFlags {
	o := &outputFlags{}
	fs.BoolVar(&o.quiet, "q", false, quietText)
	fs.BoolVar(&o.quiet, "quiet", false, quietText)
	const verboseText = "show progress on stderr as plain lines, one per run and stage, even when stderr is not a terminal"
	fs.BoolVar(&o.verbose, "v", false, verboseText)
	fs.BoolVar(&o.verbose, "verbose", false, verboseText)
	return o
}

// check rejects contradictory output flags.
func (o *outputFlags) check() error {
	if o.quiet && o.verbose {
		return errors.New("-q and -v cannot be used together")
	}
	return nil
}

// progress returns the call's progress reporter: plain lines with -v, a
// live line when stderr is a terminal, nothing with -q or otherwise.
func (c *call) progress(o *outputFlags) *progress {
	mode := progressOff
	switch {
	case o.quiet:
	case o.verbose:
		mode = progressPlain
	case c.sys.isTerminal != nil && c.sys.isTerminal(c.stderr):
		mode = progressLive
	}
	w := c.stderr
	if mode == progressLive {
		// The live line moves the cursor itself (\r, ESC[K) and shows no
		// input text, so it bypasses the escaping writer.
		w = unwrap(w)
	}
	c.shown = newProgress(w, mode, c.sys.now, c.sys.redraw)
	return c.shown
}

// closest returns the candidate nearest to s when it is a plausible typo.
func closest(s string, candidates []string) string { return suggest.Closest(s, candidates) }

// Command mutate applies single-operator mutants to benchnote's core
// packages and reports the ones no test kills (survivors).
//
// Each mutant changes one binary operator in one non-test file — < ↔ <=,
// > ↔ >=, == ↔ !=, + ↔ −, * ↔ /, && ↔ || — and runs that package's tests
// against it through `go test -overlay`, so the source tree is never
// written. A mutant is killed when the tests fail (or do not build),
// survives when they pass, and times out when they run past -timeout.
//
// It is run on demand, not in CI (a full pass takes hours on two cores):
//
//	go run ./scripts/mutate -pkg ./stats
//	go run ./scripts/mutate -pkg ./analyze -file run.go -max 60 -seed 2
//	go run ./scripts/mutate -pkg ./report -file format.go -list
//
// docs/testing.md records the survivors found and why each is harmless.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// swaps maps each operator mutated to its mutant.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
	token.ADD: token.SUB, token.SUB: token.ADD,
	token.MUL: token.QUO, token.QUO: token.MUL,
	token.LAND: token.LOR, token.LOR: token.LAND,
}

// mutant is one operator change at one place.
type mutant struct {
	file     string // absolute path
	pos      token.Position
	from, to token.Token
	index    int // the index-th binary expression of the file
}

func (m mutant) String() string {
	return fmt.Sprintf("%s:%d:%d: %s → %s", filepath.Base(m.file), m.pos.Line, m.pos.Column, m.from, m.to)
}

func main() {
	pkg := flag.String("pkg", "./stats", "package directory to mutate")
	only := flag.String("file", "", "mutate only this file of the package (base name)")
	max := flag.Int("max", 0, "test at most this many mutants, drawn at random (0: all)")
	seed := flag.Uint64("seed", 1, "seed of the draw")
	timeout := flag.Duration("timeout", 5*time.Minute, "time limit of one mutant's tests")
	run := flag.String("run", "", "passed to go test -run")
	list := flag.Bool("list", false, "list the mutants and exit")
	flag.Parse()
	if err := mutateAll(*pkg, *only, *max, *seed, *timeout, *run, *list); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func mutateAll(pkg, only string, max int, seed uint64, timeout time.Duration, run string, list bool) error {
	dir, err := filepath.Abs(pkg)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	var ms []mutant
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || only != "" && filepath.Base(f) != only {
			continue
		}
		found, err := mutantsOf(f)
		if err != nil {
			return err
		}
		ms = append(ms, found...)
	}
	if len(ms) == 0 {
		return fmt.Errorf("no mutant in %s", pkg)
	}
	if max > 0 && max < len(ms) {
		r := rand.New(rand.NewPCG(seed, 0))
		r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		ms = ms[:max]
		sort.Slice(ms, func(i, j int) bool {
			if ms[i].file != ms[j].file {
				return ms[i].file < ms[j].file
			}
			return ms[i].index < ms[j].index
		})
	}
	if list {
		for _, m := range ms {
			fmt.Println(m)
		}
		return nil
	}
	tmp, err := os.MkdirTemp("", "benchnote-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var survived, killed, timedOut int
	for i, m := range ms {
		outcome, err := test(m, dir, tmp, timeout, run)
		if err != nil {
			return err
		}
		switch outcome {
		case "survived":
			survived++
		case "killed":
			killed++
		default:
			timedOut++
		}
		fmt.Printf("[%d/%d] %-8s %s\n", i+1, len(ms), outcome, m)
	}
	fmt.Printf("%d mutants: %d killed, %d survived, %d timed out\n", len(ms), killed, survived, timedOut)
	return nil
}

// mutantsOf lists every operator of file that swaps has a mutant for.
func mutantsOf(file string) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var ms []mutant
	index := 0
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		if to, ok := swaps[b.Op]; ok && !stringConcat(b) {
			ms = append(ms, mutant{file: file, pos: fset.Position(b.OpPos), from: b.Op, to: to, index: index})
		}
		index++
		return true
	})
	return ms, nil
}

// stringConcat reports whether b adds string literals, whose mutant
// (string − string) never compiles and so tells nothing.
func stringConcat(b *ast.BinaryExpr) bool {
	isString := func(e ast.Expr) bool {
		l, ok := e.(*ast.BasicLit)
		return ok && l.Kind == token.STRING
	}
	return b.Op == token.ADD && (isString(b.X) || isString(b.Y))
}

// test writes m's file into tmp and runs the package's tests with an
// overlay putting it in place of the original.
func test(m mutant, dir, tmp string, timeout time.Duration, run string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, m.file, nil, parser.ParseComments)
	if err != nil {
		return "", err
	}
	index := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok {
			if index == m.index {
				b.Op = m.to
			}
			index++
		}
		return true
	})
	var src bytes.Buffer
	if err := printer.Fprint(&src, fset, f); err != nil {
		return "", err
	}
	mutated := filepath.Join(tmp, filepath.Base(m.file))
	if err := os.WriteFile(mutated, src.Bytes(), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {m.file: mutated}})
	if err != nil {
		return "", err
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The test binary gets the limit too: killing go test when the
	// context ends leaves a looping test binary running otherwise.
	args := []string{"test", "-short", "-count=1", "-timeout", timeout.String(), "-overlay", overlayFile}
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	cmd.Dir = dir
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "timeout", nil
	case err == nil:
		return "survived", nil
	case errors.As(err, &exit):
		return "killed", nil
	}
	return "", err
}

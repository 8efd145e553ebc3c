package cli

import (
	"errors"
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// decimalFlag wraps a whole-number flag of package flag so that it reads decimal only:
// flag's own integers take Go's prefixes, so -W 0064 read octal 52 and -s 010 ran 8 steps.
// Leading zeros are dropped; "0x", "0o", "0b" and "_" are refused, as any text that is not
// a decimal number.
type decimalFlag struct {
	flag.Value
	kind string // "int" or "uint", as the help names the type
}

func (d *decimalFlag) Set(s string) error {
	digits := strings.TrimLeft(s, "+-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return errors.New("parse error")
	}
	trimmed := strings.TrimLeft(digits, "0")
	if trimmed == "" {
		trimmed = "0"
	}
	return d.Value.Set(s[:len(s)-len(digits)] + trimmed)
}

// decimalFlags makes every whole-number flag of fs read decimal (decimalFlag).
func decimalFlags(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		switch g.Get().(type) {
		case int, int64:
			f.Value = &decimalFlag{Value: f.Value, kind: "int"}
		case uint, uint64:
			f.Value = &decimalFlag{Value: f.Value, kind: "uint"}
		}
	})
}

// seedFlag is generate's -S: any uint64, or -1 (the default) for a random seed.
type seedFlag struct {
	seed  uint64
	given bool
}

func (s *seedFlag) String() string {
	if s == nil || !s.given {
		return "-1"
	}
	return strconv.FormatUint(s.seed, 10)
}

func (s *seedFlag) Set(v string) error {
	if v == "-1" {
		*s = seedFlag{}
		return nil
	}
	d := decimalFlag{Value: (*uint64Value)(&s.seed)}
	if err := d.Set(v); err != nil || strings.HasPrefix(v, "-") {
		return errors.New("parse error")
	}
	s.given = true
	return nil
}

// typeName is the type the help names (-S int, as before it took all of uint64).
func (s *seedFlag) typeName() string { return "int" }

// uint64Value is a uint64 as a flag.Value.
type uint64Value uint64

func (u *uint64Value) String() string { return strconv.FormatUint(uint64(*u), 10) }

func (u *uint64Value) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errors.New("parse error")
	}
	*u = uint64Value(v)
	return nil
}

func (d *decimalFlag) typeName() string { return d.kind }

// printDefaults is flag.FlagSet.PrintDefaults, naming the type of the flags this package
// wraps (decimalFlag, seedFlag) as flag names those it wrapped: the help stays as it was.
func printDefaults(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		name, usage := flag.UnquoteUsage(f)
		t, wrapped := f.Value.(interface{ typeName() string })
		if wrapped && name == "value" {
			name = t.typeName()
		}
		if len(name) > 0 {
			b.WriteString(" " + name)
		}
		if b.Len() <= 4 {
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		if !defaultIsZero(f, wrapped) {
			if reflect.TypeOf(f.Value).String() == "*flag.stringValue" {
				fmt.Fprintf(&b, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(&b, " (default %v)", f.DefValue)
			}
		}
		fmt.Fprint(fs.Output(), b.String(), "\n")
	})
}

// defaultIsZero reports whether f's default is its type's zero value, as package flag
// decides it (wrapped flags' zero is "0").
func defaultIsZero(f *flag.Flag, wrapped bool) (zero bool) {
	if wrapped {
		return f.DefValue == "0"
	}
	typ := reflect.TypeOf(f.Value)
	var z reflect.Value
	if typ.Kind() == reflect.Pointer {
		z = reflect.New(typ.Elem())
	} else {
		z = reflect.Zero(typ)
	}
	defer func() {
		if recover() != nil {
			zero = false
		}
	}()
	return f.DefValue == z.Interface().(flag.Value).String()
}

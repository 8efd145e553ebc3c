package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kleinbild/gpu/backends"
)

// deviceJSON is one device in `kleinbild devices --json`.
type deviceJSON struct {
	ID              string `json:"id"`
	Backend         string `json:"backend"`
	Name            string `json:"name"`
	Kind            string `json:"kind"`
	API             string `json:"api"`
	MemoryBytes     int64  `json:"memory_bytes"`
	MaxBufferBytes  int64  `json:"max_buffer_bytes"`
	MaxBindingBytes int64  `json:"max_binding_bytes"`
	Default         bool   `json:"default"`
}

// devicesHeader is the first line of `kleinbild devices`.
const devicesHeader = "ID\tKIND\tAPI\tNAME\tMEMORY\tMAX BUFFER\tMAX BINDING\tDEFAULT"

// runDevices: kleinbild devices [--json] — lists the compute devices --backend takes, one a
// line, tab-separated under a header: ID, kind (cpu, discrete, integrated, software, other),
// API, name, memory, largest buffer and largest binding ("16.00 GB", "134.2 MB", "-" when
// unknown or unlimited), and "*" in the DEFAULT column for the device used when
// --backend is not given. --json prints an array of objects with the byte counts (0 when
// unknown). Finding no GPU is not an error.
func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("devices", stderr)
	asJSON := fs.Bool("json", false, "print a JSON array instead of the table")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	ds := backends.Devices()
	if *asJSON {
		out := make([]deviceJSON, 0, len(ds))
		for _, d := range ds {
			i := d.Info
			out = append(out, deviceJSON{ID: d.ID, Backend: d.Backend, Name: i.Name, Kind: string(i.Kind), API: i.API,
				MemoryBytes: i.MemoryBytes, MaxBufferBytes: i.MaxBufferBytes, MaxBindingBytes: i.MaxBindingBytes, Default: d.Auto})
		}
		raw, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", raw)
		return err
	}
	var b strings.Builder
	b.WriteString(devicesHeader + "\n")
	for _, d := range ds {
		i := d.Info
		def := ""
		if d.Auto {
			def = "*"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, i.Kind, field(i.API), field(i.Name),
			gbField(i.MemoryBytes), gbField(i.MaxBufferBytes), gbField(i.MaxBindingBytes), def)
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// field keeps a table cell on one line and in one column.
func field(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\t' || r == '\n' || r == '\r' }), " ")
	if s == "" {
		return "-"
	}
	return s
}

// gbField formats bytes in decimal units: "16.00 GB" from 1 GB up, else "134.2 MB"; "-" for
// 0 (unknown, or no limit beyond memory).
func gbField(n int64) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"kleinbild/gpu"
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
	// Measured by tuning (0: not yet; CPU devices 0): the device's and the CPU backend's
	// rate on the same matrix product, and where memory_bytes comes from for a GPU.
	GFLOPS       float64 `json:"gflops"`
	CPUGFLOPS    float64 `json:"cpu_gflops"`
	MemorySource string  `json:"memory_source,omitempty"`
	// For a WebGPU adapter: the device the automatic default runs this card on (the
	// adapter, or its Vulkan device where measured faster) and why.
	DefaultUses string `json:"default_uses,omitempty"`
	DefaultWhy  string `json:"default_why,omitempty"`
}

// devicesHeader is the first line of `kleinbild devices`.
const devicesHeader = "ID\tKIND\tAPI\tNAME\tMEMORY\tMAX BUFFER\tMAX BINDING\tDEFAULT\tGFLOPS\tCPU GFLOPS\tMEMORY FROM"

// runDevices: kleinbild devices [--json] — lists the compute devices --backend takes, one a
// line, tab-separated under a header: ID, kind (cpu, discrete, integrated, software, other),
// API, name, memory, largest buffer and largest binding ("16.00 GB", "134.2 MB", "-" when
// unknown or unlimited), "*" in the DEFAULT column for the device used when --backend is not
// given, then for GPUs the matrix-product rates tuning measured on the device and on the CPU
// backend ("-" until `kleinbild tune` or a first run has measured them; a GPU is the default
// only when faster) and where the memory figure comes from. --json prints an array of
// objects with the byte counts (0 when unknown). Finding no GPU is not an error. After the
// table, a "Note:" line on standard error per WebGPU adapter says which backend the automatic
// default runs that card on and why (writeDefaultNotes).
func runDevices(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("devices", stderr)
	asJSON := fs.Bool("json", false, "print a JSON array instead of the table")
	selfcheck := fs.Bool("selfcheck", false, "after the table, run every matrix-unit kernel against its plain twin on each device that has them and print the differences (exit 1 if one fails)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageErr("unexpected argument %q", rest[0])
	}
	if *selfcheck && *asJSON {
		return usageErr("--selfcheck prints text lines after the table: not with --json")
	}
	ds := backends.Devices()
	if *selfcheck {
		defer func() {
			if err == nil {
				err = selfCheck(ds, stdout)
			}
		}()
	}
	if !slices.ContainsFunc(ds, func(d backends.Device) bool { return d.Backend == "webgpu" }) {
		if note := backends.GPUNote(); note != "" {
			fmt.Fprintf(stderr, "Note: %s\n", note)
		}
	}
	if *asJSON {
		out := make([]deviceJSON, 0, len(ds))
		for _, d := range ds {
			i := d.Info
			out = append(out, deviceJSON{ID: d.ID, Backend: d.Backend, Name: i.Name, Kind: string(i.Kind), API: i.API,
				MemoryBytes: i.MemoryBytes, MaxBufferBytes: i.MaxBufferBytes, MaxBindingBytes: i.MaxBindingBytes, Default: d.Auto,
				GFLOPS: d.GFLOPS, CPUGFLOPS: d.CPUGFLOPS, MemorySource: d.MemorySource, DefaultUses: d.DefaultUses, DefaultWhy: d.DefaultWhy})
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
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, i.Kind, field(i.API), field(i.Name),
			gbField(i.MemoryBytes), gbField(i.MaxBufferBytes), gbField(i.MaxBindingBytes), def,
			rateField(d.GFLOPS), rateField(d.CPUGFLOPS), field(d.MemorySource))
	}
	_, err = io.WriteString(stdout, b.String())
	writeDefaultNotes(stderr, ds)
	return err
}

// writeDefaultNotes says, for each WebGPU adapter, which backend the automatic default runs
// the card on and why (WebGPU, or its Vulkan device where `kleinbild tune` measured that
// faster): one "Note:" line each on standard error, so the table keeps its format.
func writeDefaultNotes(w io.Writer, ds []backends.Device) {
	for _, d := range ds {
		if d.DefaultUses == "" {
			continue
		}
		never := ""
		if d.Info.Kind == gpu.KindSoftware {
			never = "; a software adapter is never the automatic default"
		}
		fmt.Fprintf(w, "Note: %s (%s): the automatic default runs this card on %s (%s)%s\n", d.ID, field(d.Info.Name), d.DefaultUses, d.DefaultWhy, never)
	}
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

// rateField formats a measured rate in GFLOP/s, "-" when not measured.
func rateField(g float64) string {
	if g <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g", g)
}

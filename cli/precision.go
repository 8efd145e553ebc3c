package cli

import (
	"flag"
	"fmt"

	"kleinbild/gpu"
)

// precisionFlag adds the --precision flag of generate and bench.
func precisionFlag(fs *flag.FlagSet) *string {
	return fs.String("precision", string(gpu.PrecisionExact), "arithmetic of the matrix products: exact (float32, the golden path; the default) or fast "+
		"(Linear on float16 operands with float32 sums, on the matrix units of a Vulkan device with cooperative matrices, else on a plain kernel with the same rounding; "+
		"final latents within about 1e-2 of exact; needs --backend vulkan)")
}

// checkPrecision reads --precision (a usage error when it is neither exact nor fast).
func checkPrecision(s string) (gpu.Precision, error) {
	p, err := gpu.ParsePrecision(s)
	if err != nil {
		return "", usageErr("--precision: %v", err)
	}
	return p, nil
}

// applyPrecision puts b in precision p and returns how b runs it ("" for exact, which every
// backend runs as opened). Fast on a backend without precision modes is a usage error.
func applyPrecision(b gpu.Backend, p gpu.Precision) (string, error) {
	if p == gpu.PrecisionExact {
		return "", nil
	}
	pb, ok := b.(gpu.Precisioner)
	if !ok {
		return "", usageErr("--precision %s: the %s backend has only the exact precision (fast runs on --backend vulkan)", p, b.Name())
	}
	note, err := pb.SetPrecision(p)
	if err != nil {
		return "", fmt.Errorf("--precision %s: %w", p, err)
	}
	return note, nil
}

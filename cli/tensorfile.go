package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kleinbild/weights"
)

// readTensor reads one float tensor from a safetensors file as float32, with its shape: the
// first of names the file holds (--latents takes the "latents_init" --dump writes as well as
// "latents"). A file holding none of them gets an error that lists the tensors it holds.
func readTensor(path string, names ...string) ([]float32, []int, error) {
	f, err := weights.OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	held := f.Names()
	i := slices.IndexFunc(names, func(n string) bool { return slices.Contains(held, n) })
	if i < 0 {
		return nil, nil, fmt.Errorf("%s has no tensor %s; it holds %s", path, quotedOr(names), heldList(held))
	}
	t, err := f.Tensor(names[i])
	if err != nil {
		return nil, nil, err
	}
	out := make([]float32, t.Numel())
	if err := weights.Guard(path, func() error { return t.ReadFloat32(out) }); err != nil {
		return nil, nil, err
	}
	return out, t.Shape, nil
}

// quotedOr is names quoted and joined by "or": `"latents" or "latents_init"`.
func quotedOr(names []string) string { return strings.Join(quoteAll(names), " or ") }

// maxListedTensors bounds the tensor names an error lists.
const maxListedTensors = 8

// heldList names the tensors of a file for an error: the first few, then how many more.
func heldList(held []string) string {
	switch {
	case len(held) == 0:
		return "no tensors"
	case len(held) > maxListedTensors:
		return fmt.Sprintf("%s and %d more", strings.Join(quoteAll(held[:maxListedTensors]), ", "), len(held)-maxListedTensors)
	}
	return strings.Join(quoteAll(held), ", ")
}

// quoteAll quotes each name.
func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}

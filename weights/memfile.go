package weights

import (
	"fmt"
	"math"
	"sort"
)

// TensorData is one tensor of a File assembled from data already in memory: views of
// another format's mapping (a GGUF file) or converted copies (dequantized weights).
type TensorData struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte // little-endian, len = DType.Size() * number of elements
	// Quant, when not nil, holds the tensor packed in a block-quantized format; Data is then
	// nil and Quant.Decode makes it (DType F32) on first use.
	Quant *Quant
}

// NewFile makes a File of tensors held in memory. path names it in errors and as the
// tensors' File. closer, if not nil, runs once on Close (for instance to unmap the file the
// data is a view of). Sizes, shapes and names are checked as for a safetensors file.
func NewFile(path string, tensors []TensorData, closer func() error) (*File, error) {
	return NewMappedFile(path, tensors, closer, nil)
}

// NewMappedFile is NewFile for tensors that are views of a mapped file: release (if not
// nil) runs when the File is released (Checkpoint.Release), to advise the kernel that the
// mapping's pages may be dropped, as a mapped safetensors file's are.
func NewMappedFile(path string, tensors []TensorData, closer, release func() error) (*File, error) {
	f := &File{Path: path, Metadata: map[string]string{}, tensors: make(map[string]*Tensor, len(tensors)), unmap: closer, dropPages: release}
	if f.unmap == nil {
		f.unmap = func() error { return nil }
	}
	for _, td := range tensors {
		if _, dup := f.tensors[td.Name]; dup {
			return nil, fmt.Errorf("%s: tensor %q given twice", path, td.Name)
		}
		if td.DType.Size() == 0 {
			return nil, fmt.Errorf("%s: tensor %q has unknown dtype %s", path, td.Name, td.DType)
		}
		n := 1
		for _, d := range td.Shape {
			if d < 0 || (d > 0 && n > math.MaxInt/td.DType.Size()/d) {
				return nil, fmt.Errorf("%s: tensor %q has invalid shape %v", path, td.Name, td.Shape)
			}
			n *= d
		}
		if td.Quant != nil && (td.DType != F32 || td.Data != nil || td.Quant.Decode == nil) {
			return nil, fmt.Errorf("%s: tensor %q: a quantized tensor must be F32 with no data and a decoder", path, td.Name)
		}
		if td.Quant == nil && n*td.DType.Size() != len(td.Data) {
			return nil, fmt.Errorf("%s: tensor %q: shape %v of %s needs %d bytes, has %d", path, td.Name, td.Shape, td.DType, n*td.DType.Size(), len(td.Data))
		}
		f.tensors[td.Name] = &Tensor{Name: td.Name, DType: td.DType, Shape: append([]int(nil), td.Shape...), File: path, data: td.Data, quant: newLazy(td.Quant)}
		f.names = append(f.names, td.Name)
	}
	sort.Strings(f.names)
	return f, nil
}

// NewCheckpoint reads files as one checkpoint, as Open does for the shards of a folder; a
// tensor name in two files is an error. The checkpoint owns the files: closing it closes
// them (also when NewCheckpoint fails).
func NewCheckpoint(path string, files ...*File) (*Checkpoint, error) {
	return newCheckpoint(path, files)
}

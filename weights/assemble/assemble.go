// Package assemble presents the weights of a file in another naming or format — a BFL single
// file, a ComfyUI file, a GGUF — as a weights.Checkpoint under diffusers / transformers names,
// following a remap.Plan, so that the engine's loaders read it like a diffusers folder.
//
// Plain tensors (F32, F16, BF16) stay views of the file's mapping where the plan's op allows
// (copy, row chunk, squeeze); a half swap makes a copy. Quantized GGUF tensors stay packed
// (weights.Tensor.Quantized: a loader hands them to the backend's WeightQuant) and are
// dequantized to float32, bit-exact to ggml's decoders, only when read as float.
package assemble

import (
	"encoding/binary"
	"fmt"
	"math"

	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/remap"
)

// FromCheckpoint makes a checkpoint of plan's targets from the tensors of src. The result
// holds views of src's mappings: src must stay open while it is used, and closing the result
// does not close src.
func FromCheckpoint(src *weights.Checkpoint, plan remap.Plan) (*weights.Checkpoint, error) {
	return fromCheckpoint(src, plan, nil)
}

// fromCheckpoint is FromCheckpoint with closer run when the result is closed.
func fromCheckpoint(src *weights.Checkpoint, plan remap.Plan, closer func() error) (*weights.Checkpoint, error) {
	var tensors []weights.TensorData
	if err := weights.Guard(src.Path, func() (err error) { tensors, err = checkpointTensors(src, plan); return err }); err != nil {
		return nil, err
	}
	f, err := weights.NewMappedFile(src.Path, tensors, closer, func() error { src.Release(); return nil })
	if err != nil {
		return nil, err
	}
	return weights.NewCheckpoint(src.Path, f)
}

// checkpointTensors makes plan's targets from src; it reads the mapping (a copy or a half
// swap) and runs under weights.Guard.
func checkpointTensors(src *weights.Checkpoint, plan remap.Plan) ([]weights.TensorData, error) {
	var tensors []weights.TensorData
	for _, name := range plan.Targets() {
		s := plan[name]
		t, err := src.Tensor(s.Name)
		if err != nil {
			return nil, fmt.Errorf("assemble %s: %w", name, err)
		}
		td, err := apply(name, s, t.DType, t.Shape, t.Bytes())
		if err != nil {
			return nil, err
		}
		tensors = append(tensors, td)
	}
	return tensors, nil
}

// apply makes target name from source data of the given dtype and shape (row-major).
func apply(name string, s remap.Source, dt weights.DType, shape []int, data []byte) (weights.TensorData, error) {
	out, err := s.Shape(shape)
	if err != nil {
		return weights.TensorData{}, fmt.Errorf("assemble %s: %w", name, err)
	}
	n, rowBytes := 1, len(data)
	if len(shape) > 0 {
		n = shape[0]
		rowBytes = 0
		if n > 0 {
			rowBytes = len(data) / n
		}
	}
	b, err := s.Bytes(data, n, rowBytes)
	if err != nil {
		return weights.TensorData{}, fmt.Errorf("assemble %s: %w", name, err)
	}
	return weights.TensorData{Name: name, DType: dt, Shape: out, Data: b}, nil
}

// plainTypes are the GGUF types kept as views, with their safetensors dtype.
var plainTypes = map[gguf.Type]weights.DType{gguf.F32: weights.F32, gguf.F16: weights.F16, gguf.BF16: weights.BF16}

// FromGGUF makes a checkpoint of plan's targets from the tensors of a GGUF file. F32, F16 and
// BF16 tensors keep their type; quantized ones are F32 tensors kept packed (see
// weights.Tensor.Quantized) until read as float. The result owns f: closing it
// closes f (also when FromGGUF fails).
func FromGGUF(f *gguf.File, plan remap.Plan) (*weights.Checkpoint, error) {
	var tensors []weights.TensorData
	err := weights.Guard(f.Path, func() (err error) { tensors, err = ggufTensors(f, plan); return err })
	if err != nil {
		f.Close()
		return nil, err
	}
	wf, err := weights.NewMappedFile(f.Path, tensors, f.Close, f.ReleaseAll)
	if err != nil {
		f.Close()
		return nil, err
	}
	return weights.NewCheckpoint(f.Path, wf)
}

// ggufTensors makes plan's targets from f; it reads the mapping (a copy or a half swap) and
// runs under weights.Guard. A packed tensor is dequantized later, by weights' guarded load.
func ggufTensors(f *gguf.File, plan remap.Plan) ([]weights.TensorData, error) {
	var tensors []weights.TensorData
	for _, name := range plan.Targets() {
		s := plan[name]
		t, err := f.Tensor(s.Name)
		if err != nil {
			return nil, fmt.Errorf("assemble %s: %w", name, err)
		}
		if dt, ok := plainTypes[t.Type]; ok {
			td, err := apply(name, s, dt, t.Shape, t.Bytes())
			if err != nil {
				return nil, err
			}
			tensors = append(tensors, td)
			continue
		}
		if t.Numel() == 0 { // the parser refuses zero dimensions; never divide by one
			return nil, fmt.Errorf("assemble %s: %s has no elements (shape %v)", name, t.Name, t.Shape)
		}
		// Split the packed rows (whole blocks each), then dequantize only what the target holds.
		rowBytes, err := t.Type.RowBytes(t.RowLen())
		if err != nil {
			return nil, fmt.Errorf("assemble %s: %s: %w", name, t.Name, err)
		}
		n, perRow := 1, t.Numel()
		if len(t.Shape) > 1 {
			n = t.Shape[0]
			perRow = t.Numel() / max(n, 1)
			rowBytes *= perRow / t.RowLen()
		}
		packed, err := s.Bytes(t.Bytes(), n, rowBytes)
		if err != nil {
			return nil, fmt.Errorf("assemble %s: %w", name, err)
		}
		shape, err := s.Shape(t.Shape)
		if err != nil {
			return nil, fmt.Errorf("assemble %s: %w", name, err)
		}
		typ, count := t.Type, len(packed)/max(rowBytes, 1)*perRow
		decode := func() ([]byte, error) {
			vals := make([]float32, count)
			if err := gguf.Dequantize(typ, vals, packed); err != nil {
				return nil, err
			}
			return f32Bytes(vals), nil
		}
		q := &weights.Quant{Type: typ.String(), Data: packed, Decode: decode}
		tensors = append(tensors, weights.TensorData{Name: name, DType: weights.F32, Shape: shape, Quant: q})
	}
	return tensors, nil
}

// f32Bytes encodes float32 values little-endian.
func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

package ggml

import (
	"strings"
	"testing"
)

// TestTable: the table of types is consistent: numbers and names unique, every row a
// geometry, every Packed type decodable with its scales inside a block; the names and
// geometry of the types the project reads are ggml's (type_traits).
func TestTable(t *testing.T) {
	nums, names := map[Type]bool{}, map[string]bool{}
	for _, r := range table {
		if nums[r.t] || names[r.Name] {
			t.Errorf("type %d (%s) is in the table twice", r.t, r.Name)
		}
		nums[r.t], names[r.Name] = true, true
		if r.BlockElems <= 0 || r.BlockBytes <= 0 {
			t.Errorf("%s: block %d elements, %d bytes", r.Name, r.BlockElems, r.BlockBytes)
		}
		if r.Packed && (r.Decode == nil || len(r.Scales) == 0) {
			t.Errorf("%s is packed without a decoder or scales", r.Name)
		}
		for _, o := range r.Scales {
			if o < 0 || o+2 > r.BlockBytes {
				t.Errorf("%s: scale at byte %d is outside its %d-byte block", r.Name, o, r.BlockBytes)
			}
		}
		if got, ok := ByName(strings.ToLower(r.Name)); !ok || got != r.t {
			t.Errorf("ByName(%q) = %v, %v", r.Name, got, ok)
		}
	}
	for _, c := range []struct {
		t            Type
		name         string
		elems, bytes int
	}{{Q4_0, "Q4_0", 32, 18}, {Q8_0, "Q8_0", 32, 34}, {Q4_K, "Q4_K", 256, 144}, {Q6_K, "Q6_K", 256, 210}, {BF16, "BF16", 1, 2}, {MXFP4, "MXFP4", 32, 17}} {
		if e, b := c.t.Block(); c.t.String() != c.name || e != c.elems || b != c.bytes {
			t.Errorf("%v: %s, %d, %d; want %s, %d, %d", uint32(c.t), c.t, e, b, c.name, c.elems, c.bytes)
		}
	}
	if Type(33).Known() || Type(33).String() != "type(33)" {
		t.Error("type 33 is known")
	}
	want := []Type{Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K}
	if got := PackedTypes(); len(got) != len(want) || got[0] != Q4_0 || got[len(got)-1] != Q6_K {
		t.Errorf("PackedTypes %v, want %v", got, want)
	}
	if n, err := Q4_K.RowBytes(512); err != nil || n != 288 {
		t.Errorf("Q4_K.RowBytes(512) = %d, %v", n, err)
	}
	if _, err := Q4_K.RowBytes(100); err == nil {
		t.Error("Q4_K.RowBytes(100): no error")
	}
}

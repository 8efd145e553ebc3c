package lora

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// ΔW tolerance against the golden data: both sides are float64 products rounded once to
// float32 from the same float32 factors, so they agree to the last bit or so.
const deltaTol = 1e-6

func openGolden(t *testing.T, file string) *Adapter {
	t.Helper()
	a, err := Open(golden.Path(t, "lora", "loras", file))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// convertedCase is one transformer/ golden file whose sidecar gives diffusers' converted
// factors and peft scalings.
type convertedCase struct {
	golden, lora string
	format       Format
	modules      int // modules diffusers adapts (q, k, v counted separately)
}

var convertedCases = []convertedCase{
	{"t2i_2x3_sigma0.75_lora_diffusers", "lora_diffusers_r4_a8.safetensors", FormatDiffusers, 37},
	{"t2i_2x3_sigma0.75_lora_bfl", "lora_bfl_r4_noalpha.safetensors", FormatBFL, 36},
	{"t2i_2x3_sigma0.75_lora_kohya", "lora_kohya_r2_a1.safetensors", FormatKohya, 33},
	{"t2i_2x3_sigma0.75_lora_bfl_final_layer_adaln", "lora_bfl_final_layer_adaln_r4.safetensors", FormatBFL, 1},
}

// TestGoldenConvertedDeltaW compares every module's ΔW = scale·B·A with the one diffusers'
// converter and peft hold (peft_scaling · lora_B · lora_A from the golden file): the module
// mapping, the q/k/v split, the kohya alpha baking and the metadata alpha all show in it.
func TestGoldenConvertedDeltaW(t *testing.T) {
	for _, c := range convertedCases {
		t.Run(c.golden, func(t *testing.T) {
			a := openGolden(t, c.lora)
			if a.Format != c.format || len(a.Unmatched) != 0 {
				t.Errorf("format %v, unmatched %v; want %v and none", a.Format, a.Unmatched, c.format)
			}
			f := golden.Open(t, "lora/transformer/"+c.golden+".safetensors")
			var side struct {
				Scaling map[string]float64 `json:"peft_scaling"`
				Lora    []struct {
					Adapter string `json:"adapter_name"`
				} `json:"lora"`
			}
			readJSON(t, golden.Path(t, "lora", "transformer", c.golden+".json"), &side)
			prefix := "converted." + side.Lora[0].Adapter + "."
			var want []string
			for _, n := range f.Names() {
				if m, ok := strings.CutSuffix(strings.TrimPrefix(n, prefix), ".lora_A.weight"); ok && strings.HasPrefix(n, prefix) {
					want = append(want, m)
				}
			}
			mods := Stack{{Adapter: a, Strength: 1}}.Modules(Transformer)
			if len(want) != c.modules || len(mods) != c.modules {
				t.Fatalf("golden adapts %d modules, we %d; want %d", len(want), len(mods), c.modules)
			}
			for _, m := range want {
				ga, sa := golden.F32(t, f, prefix+m+".lora_A.weight")
				gb, sb := golden.F32(t, f, prefix+m+".lora_B.weight")
				ref := Applied{Term: &Term{Module: m, Kind: LoRA, Out: sb[0], In: sa[1], Rank: sa[0],
					A: Matrix{sa[0], sa[1], ga}, B: Matrix{sb[0], sb[1], gb}}, Scale: float32(side.Scaling[side.Lora[0].Adapter+"."+m])}
				if m == "norm_out.linear" && c.format == FormatBFL {
					// diffusers keeps BFL's (shift, scale) rows where norm_out.linear has
					// (scale, shift); we swap them (README quirk), so compare with the swap.
					ref.B = swapRows(ref.B)
				}
				wantD, err := DeltaW([]Applied{ref}, sb[0], sa[1])
				if err != nil {
					t.Fatal(err)
				}
				got, err := DeltaW(mods[m], sb[0], sa[1])
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				golden.Compare(t, m, got, wantD, deltaTol)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenLoKrDeltaW compares every LoKr module's ΔW with LyCORIS' diff_weight (float64,
// stored as float32), including the one layer with a decomposed w2 and alpha/rank = 0.5.
func TestGoldenLoKrDeltaW(t *testing.T) {
	a := openGolden(t, "lokr_lycoris_f4.safetensors")
	if a.Format != FormatLyCORIS || len(a.Unmatched) != 0 {
		t.Errorf("format %v, unmatched %v", a.Format, a.Unmatched)
	}
	f := golden.Open(t, "lora/transformer/t2i_2x3_sigma0.75_lokr_lycoris.safetensors")
	var side struct {
		Scale map[string]float32 `json:"lokr_scale_per_module"`
	}
	readJSON(t, golden.Path(t, "lora", "transformer", "t2i_2x3_sigma0.75_lokr_lycoris.json"), &side)
	mods := Stack{{Adapter: a, Strength: 1}}.Modules(Transformer)
	n := 0
	for _, name := range f.Names() {
		m, ok := strings.CutPrefix(name, "delta_W.")
		if !ok {
			continue
		}
		n++
		want, shape := golden.F32(t, f, name)
		terms := mods[m]
		if len(terms) != 1 || terms[0].Kind != LoKr || terms[0].Scale != side.Scale[m] {
			t.Fatalf("%s: %d terms, want one LoKr term of scale %v", m, len(terms), side.Scale[m])
		}
		got, err := DeltaW(terms, shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		golden.Compare(t, m, got, want, deltaTol)
	}
	if n != 28 || len(mods) != n {
		t.Errorf("golden has %d ΔW, we adapt %d modules; want 28", n, len(mods))
	}
}

// TestApplyMatchesDeltaW checks the run-time product (x·Aᵀ)·Bᵀ, and LoKr's two small
// products, against x·ΔWᵀ for every golden adapter, stacked with strengths 0.7 and −0.5.
func TestApplyMatchesDeltaW(t *testing.T) {
	stack := Stack{
		{Adapter: openGolden(t, "lora_diffusers_r4_a8.safetensors"), Strength: 0.7},
		{Adapter: openGolden(t, "lora_kohya_r2_a1.safetensors"), Strength: -0.5},
		{Adapter: openGolden(t, "lokr_lycoris_f4.safetensors"), Strength: 1.3},
		{Adapter: openGolden(t, "lora_bfl_r4_noalpha.safetensors"), Strength: 0},
	}
	if err := stack.Check(); err != nil {
		t.Fatal(err)
	}
	const tokens = 3
	mods := stack.Modules(Transformer)
	names := make([]string, 0, len(mods))
	for m := range mods {
		names = append(names, m)
	}
	slices.Sort(names)
	for _, m := range names {
		terms := mods[m]
		out, in := terms[0].Out, terms[0].In
		x := make([]float32, tokens*in)
		for i := range x {
			x[i] = float32((i*7919)%23)/11 - 1
		}
		d, err := DeltaW(terms, out, in)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, tokens*out)
		for n := range tokens {
			for o := range out {
				var s float64
				for i := range in {
					s += float64(d[o*in+i]) * float64(x[n*in+i])
				}
				want[n*out+o] = float32(s)
			}
		}
		got := make([]float32, tokens*out)
		if err := Apply(got, x, tokens, terms); err != nil {
			t.Fatal(err)
		}
		golden.Compare(t, m, got, want, 1e-6)
	}
}

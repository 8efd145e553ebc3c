package inpaint

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/sched"
	"kleinbild/engine/torchrand"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// goldenCase is the part of a case's JSON sidecar the tests use.
type goldenCase struct {
	name        string
	Prompt      string    `json:"prompt"`
	Seed        uint64    `json:"seed"`
	Strength    float64   `json:"strength"`
	Steps       int       `json:"num_inference_steps"`
	TStart      int       `json:"t_start"`
	StepsRun    int       `json:"steps_run"`
	Guidance    float64   `json:"guidance_scale"`
	CFG         bool      `json:"do_classifier_free_guidance"`
	Distilled   bool      `json:"is_distilled"`
	PadCrop     *int      `json:"padding_mask_crop"`
	CropsCoords []int     `json:"crops_coords"`
	ImagePNG    string    `json:"image_png"`
	MaskPNG     string    `json:"mask_png"`
	RefPNG      *string   `json:"reference_png"`
	ProcessedHW [2]int    `json:"processed_hw"`
	InputWH     [2]int    `json:"input_size_wh"`
	SigmasRun   []float64 `json:"sigmas_run"`
}

// goldenCases lists every case of shared/golden/inpaint (a case is a .json with a
// matching .safetensors).
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	dir := golden.Path(t, "inpaint")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cs []goldenCase
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".safetensors")
		if !ok {
			continue
		}
		data, err := os.ReadFile(golden.Path(t, "inpaint", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		c := goldenCase{name: name}
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		cs = append(cs, c)
	}
	if len(cs) != 9 {
		t.Fatalf("found %d golden inpainting cases, want 9", len(cs))
	}
	return cs
}

func (c goldenCase) open(t *testing.T) *weights.File {
	return golden.Open(t, "inpaint/"+c.name+".safetensors")
}

func (c goldenCase) load(t *testing.T, file string) image.Image {
	t.Helper()
	img, err := imageio.Load(golden.Path(t, "inpaint", file))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// exact fails unless got equals want bit for bit.
func exact(t *testing.T, label string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", label, len(got), len(want))
	}
	bad, first := 0, -1
	for i := range got {
		if got[i] != want[i] {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ (first at %d: %v, want %v)", label, bad, len(got), first, got[first], want[first])
	}
}

// bytesToUnit maps bytes to float32 v (0/1 masks) or the [-1, 1] tensor of an RGB image.
func maskFloats(b []uint8) []float32 {
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = float32(v)
	}
	return out
}

// prepared runs this package's preprocessing of a case: the image (with the crop box of
// padding_mask_crop when set), the binarised mask and the token mask.
func (c goldenCase) prepared(t *testing.T) (img RGB, bin []uint8, tokMask []float32) {
	t.Helper()
	src, mask := c.load(t, c.ImagePNG), c.load(t, c.MaskPNG)
	var err error
	if c.PadCrop != nil {
		crop, err := CropForMask(src, mask, *c.PadCrop)
		if err != nil {
			t.Fatal(err)
		}
		if got := []int{crop.Box.Min.X, crop.Box.Min.Y, crop.Box.Max.X, crop.Box.Max.Y}; fmt.Sprint(got) != fmt.Sprint(c.CropsCoords) {
			t.Fatalf("crop box %v, want %v", got, c.CropsCoords)
		}
		img, bin = crop.Image, crop.Mask
	} else {
		if img, err = Image(src); err != nil {
			t.Fatal(err)
		}
		if bin, err = Mask(mask, img.W, img.H); err != nil {
			t.Fatal(err)
		}
	}
	if img.H != c.ProcessedHW[0] || img.W != c.ProcessedHW[1] {
		t.Fatalf("processed size %d×%d, want %d×%d (w×h)", img.W, img.H, c.ProcessedHW[1], c.ProcessedHW[0])
	}
	if tokMask, err = LatentMask(bin, img.W, img.H); err != nil {
		t.Fatal(err)
	}
	return img, bin, tokMask
}

// TestGoldenPreprocess checks the image, mask, token mask, reference, noise, schedule and
// start step of every case against the pipeline's tensors: all bit-exact.
func TestGoldenPreprocess(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			f := c.open(t)
			img, bin, tokMask := c.prepared(t)
			want, _ := golden.F32(t, f, "image_preprocessed")
			exact(t, "image_preprocessed", imageio.ToTensor(img.Pix, img.W, img.H), want)
			want, _ = golden.F32(t, f, "mask_preprocessed")
			exact(t, "mask_preprocessed", maskFloats(bin), want)
			want, _ = golden.F32(t, f, "mask_packed")
			exact(t, "mask_packed", tokMask, want)
			want, _ = golden.F32(t, f, "mask_latent")
			exact(t, "mask_latent", tokMask, want)

			if c.RefPNG != nil {
				ref, err := Reference(c.load(t, *c.RefPNG))
				if err != nil {
					t.Fatal(err)
				}
				want, _ = golden.F32(t, f, "reference_preprocessed")
				exact(t, "reference_preprocessed", imageio.ToTensor(ref.Pix, ref.W, ref.H), want)
			}

			n := len(tokMask)
			noise := torchrand.New(c.Seed).Randn(Channels * n)
			want, _ = golden.F32(t, f, "noise")
			exact(t, "noise", noise, want)

			tStart, err := StartStep(c.Steps, c.Strength)
			if err != nil {
				t.Fatal(err)
			}
			if tStart != c.TStart || c.Steps-tStart != c.StepsRun {
				t.Errorf("t_start %d, want %d (%d steps run)", tStart, c.TStart, c.StepsRun)
			}
			sc := sched.Flow(c.Steps, n)
			want, _ = golden.F32(t, f, "scheduler_sigmas")
			exact(t, "scheduler_sigmas", sc.Sigmas, want)
			want, _ = golden.F32(t, f, "timesteps_run")
			exact(t, "timesteps_run", sc.Timesteps[tStart:], want)
		})
	}
}

// TestGoldenLatentArithmetic checks the start latents, the Euler step and the blend of
// every step against the pipeline's tensors, each from the reference's own input of that
// stage: bit-exact.
func TestGoldenLatentArithmetic(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			f := c.open(t)
			imgLat, _ := golden.F32(t, f, "image_latents_packed")
			noiseCHW, _ := golden.F32(t, f, "noise")
			noise := Pack(noiseCHW)
			mask, _ := golden.F32(t, f, "mask_packed")
			sigmas, _ := golden.F32(t, f, "scheduler_sigmas")
			il, _ := golden.F32(t, f, "image_latents")
			exact(t, "Pack(image_latents)", Pack(il), imgLat)
			exact(t, "Unpack(Pack)", Unpack(Pack(il)), il)

			x := make([]float32, len(imgLat))
			if err := ScaleNoise(x, imgLat, noise, sigmas[c.TStart]); err != nil {
				t.Fatal(err)
			}
			want, _ := golden.F32(t, f, "start_latents_packed")
			exact(t, "start_latents_packed", x, want)

			scratch := make([]float32, len(x))
			prev := want
			for i := 0; i < c.StepsRun; i++ {
				k := c.TStart + i
				v, _ := golden.F32(t, f, fmt.Sprintf("step%d_noise_pred", i))
				stepped := append([]float32(nil), prev...)
				EulerStep(stepped, v, sigmas[k+1]-sigmas[k])
				want, _ = golden.F32(t, f, fmt.Sprintf("step%d_latents_stepped", i))
				exact(t, fmt.Sprintf("step%d_latents_stepped", i), stepped, want)

				x = append(x[:0], want...)
				if err := BlendStep(x, imgLat, noise, mask, scratch, sigmas, c.TStart, i); err != nil {
					t.Fatal(err)
				}
				if i < c.StepsRun-1 {
					ren, _ := golden.F32(t, f, fmt.Sprintf("step%d_image_latents_renoised", i))
					exact(t, fmt.Sprintf("step%d_image_latents_renoised", i), scratch, ren)
				} else if _, err := f.Tensor(fmt.Sprintf("step%d_image_latents_renoised", i)); err == nil {
					t.Errorf("the last step has a re-noised original in the golden file")
				}
				want, _ = golden.F32(t, f, fmt.Sprintf("step%d_latents_after", i))
				exact(t, fmt.Sprintf("step%d_latents_after", i), x, want)
				prev = want
			}
			final, _ := golden.F32(t, f, "final_latents_packed")
			exact(t, "final_latents_packed", x, final)
			if strings.HasPrefix(c.name, "mask_all_black") {
				exact(t, "all-black mask: final == image latents", x, imgLat)
			}
		})
	}
}

// TestStartStepTable checks StartStep against the pipeline's get_timesteps for every
// (steps, strength) pair of strength_steps.json, float rounding included.
func TestStartStepTable(t *testing.T) {
	data, err := os.ReadFile(golden.Path(t, "inpaint", "strength_steps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		StepsRun map[string]int `json:"steps_run"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.StepsRun) < 100 {
		t.Fatalf("only %d entries in strength_steps.json", len(table.StepsRun))
	}
	for key, want := range table.StepsRun {
		var n int
		var s float64
		if _, err := fmt.Sscanf(key, "%d/%g", &n, &s); err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		tStart, err := StartStep(n, s)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if got := n - tStart; got != want {
			t.Errorf("%d steps × strength %v: %d steps run, want %d", n, s, got, want)
		}
	}
}

func pillowRGB(rgb []uint8, w, h int) imageio.Pillow { return imageio.NewPillowRGB(rgb, w, h) }

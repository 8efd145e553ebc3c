package run

import (
	"reflect"
	"slices"
	"testing"

	"kleinbild/app/jobs"
	"kleinbild/engine"
	"kleinbild/engine/lora"
)

// historyForm is a form that only keeps the prompts added to the history.
type historyForm struct {
	Form
	added []string
}

func (f *historyForm) AddToHistory(prompt string) { f.added = append(f.added, prompt) }

// fixedAdapters is an adapters section with a fixed stack.
type fixedAdapters struct {
	stack   lora.Stack
	partial bool
}

func (a fixedAdapters) Stack() lora.Stack { return a.stack }
func (a fixedAdapters) Partial() bool     { return a.partial }

// JobFromForm carries the form, the references and the adapters into the job, adds the
// prompt to the history, and draws a seed only when the field gave none.
func TestJobFromFormCarriesTheInputs(t *testing.T) {
	form := &historyForm{}
	refs := []string{"a.png", "b.png"}
	stack := lora.Stack{{Adapter: &lora.Adapter{Path: "style.safetensors"}, Strength: 0.5}}
	rn := &Runner{Deps: Deps{Form: form, Refs: func() []string { return refs }, Adapters: fixedAdapters{stack, true}}}
	settings := engine.Settings{Prompt: "a lighthouse", Width: 320, Height: 192, Steps: 7, Seed: 41}
	j := rn.JobFromForm(jobs.Form{Settings: settings, SeedGiven: true, Count: 3})
	want := settings
	want.References, want.AdaptersPartial = slices.Clone(refs), true
	if !reflect.DeepEqual(j.Req.Settings, want) || j.Count != 3 {
		t.Errorf("job settings %+v × %d, want %+v × 3", j.Req.Settings, j.Count, want)
	}
	if !slices.Equal(j.Req.References, refs) || len(j.Req.Adapters) != 1 || j.Req.Adapters[0] != stack[0] || !j.Req.AdaptersPartial {
		t.Errorf("job references %v, adapters %v (partial %v)", j.Req.References, j.Req.Adapters, j.Req.AdaptersPartial)
	}
	refs[0] = "changed.png" // a reference changed after queueing leaves the job alone
	if j.Req.References[0] != "a.png" {
		t.Errorf("the job's references follow the list: %v", j.Req.References)
	}
	if !slices.Equal(form.added, []string{"a lighthouse"}) {
		t.Errorf("history %q", form.added)
	}
	random := jobs.Form{Settings: settings, Count: 1}
	a, b := rn.JobFromForm(random), rn.JobFromForm(random)
	if a.Req.Seed == b.Req.Seed {
		t.Errorf("two jobs of an empty seed field both have seed %d", a.Req.Seed)
	}
}

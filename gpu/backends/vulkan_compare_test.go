package backends

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// compareTiny compares on tiny work within a short budget.
var compareTiny = CompareOptions{Workloads: TinyVulkanWorkloads(), Budget: 2 * time.Second, Reps: 1}

// checkCompareVulkan compares the Vulkan backend with the WebGPU device b, just tuned with its
// cache in a temporary folder: the record is written, Devices reads the same verdict from it,
// a second comparison comes from the cache, and a software adapter stays out of the default
// whatever the verdict. Nothing depends on which backend was faster.
func checkCompareVulkan(t *testing.T, b gpu.Backend) {
	t.Helper()
	if !vulkan.Compiled {
		return
	}
	w := b.(*webgpu.Backend)
	ctx := context.Background()
	start := time.Now()
	c, err := CompareVulkan(ctx, w, compareTiny)
	if err != nil {
		t.Fatal(err)
	}
	if c.Record == nil {
		t.Logf("no Vulkan comparison: %s", c.Note)
		return
	}
	t.Logf("%s: %+v; %s (compared in %v)", c.VulkanID, c.Record.Work, c.Why, time.Since(start).Round(time.Millisecond))
	if !c.Saved || c.Cached || loadVulkanRecord("", w.Adapter().Key()) == nil {
		t.Fatalf("not recorded: %+v", c)
	}
	again, err := CompareVulkan(ctx, w, compareTiny)
	if err != nil || !again.Cached || again.Faster != c.Faster || again.Why != c.Why {
		t.Errorf("second comparison: %+v, %v", again, err)
	}
	id := fmt.Sprintf("webgpu:%d", w.Adapter().Index())
	for _, d := range Devices() {
		if d.ID != id {
			continue
		}
		want := id
		if c.Faster {
			want = c.VulkanID
		}
		if d.DefaultUses != want || d.DefaultWhy != c.Why {
			t.Errorf("Devices: %s uses %s (%s), the comparison said %s (%s)", id, d.DefaultUses, d.DefaultWhy, want, c.Why)
		}
		if d.Info.Kind == gpu.KindSoftware && d.Auto {
			t.Errorf("software adapter %s is the default", id)
		}
		checkForcedVerdicts(t, id, c)
		return
	}
	t.Errorf("%s missing from Devices", id)
}

// checkForcedVerdicts rewrites the current record of c with times that make Vulkan faster,
// then slower, and checks that Devices follows: adapter id's default runs on c.VulkanID only
// while Vulkan is faster, and a software adapter is never the default either way.
func checkForcedVerdicts(t *testing.T, id string, c *VulkanComparison) {
	for _, faster := range []bool{true, false} {
		r := *c.Record
		r.Work = []WorkTime{{Name: "w", WebGPU: 0.010, Vulkan: 0.002}}
		if !faster {
			r.Work[0].WebGPU, r.Work[0].Vulkan = r.Work[0].Vulkan, r.Work[0].WebGPU
		}
		if err := saveVulkanRecord("", &r); err != nil {
			t.Fatal(err)
		}
		want := id
		if faster {
			want = c.VulkanID
		}
		for _, d := range Devices() {
			if d.ID == id && (d.DefaultUses != want || strings.Contains(d.DefaultWhy, "measured faster") != faster) {
				t.Errorf("record with Vulkan faster %v: %s uses %s (%s), want %s", faster, id, d.DefaultUses, d.DefaultWhy, want)
			}
			if d.Auto && (d.Info.Kind == gpu.KindSoftware || (d.Backend == "vulkan" && !faster)) {
				t.Errorf("record with Vulkan faster %v: %s (%s) is the default", faster, d.ID, d.Info.Kind)
			}
		}
	}
}

const envNoVulkanChild = "KLEINBILD_TEST_NO_VULKAN"

// TestNoVulkanDriver: on a machine without a Vulkan driver (the loader finds no ICD), opening
// the Vulkan backend fails with a message that says so, the CPU backends are listed and open,
// and the default is a CPU backend. It runs in a child process with the driver hidden.
func TestNoVulkanDriver(t *testing.T) {
	if os.Getenv(envNoVulkanChild) == "1" {
		_, err := Open("vulkan")
		fmt.Printf("open vulkan: %v\n", err)
		for _, d := range Devices() {
			fmt.Printf("device %s auto=%v\n", d.ID, d.Auto)
		}
		def := Default()
		fmt.Printf("default %s\n", def.Name())
		def.Close()
		return
	}
	if !vulkan.Compiled {
		t.Skip("no Vulkan in this build")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoVulkanDriver$", "-test.count=1")
	cmd.Env = append(os.Environ(), envNoVulkanChild+"=1", EnvBackend+"=", "VK_ICD_FILENAMES=/nonexistent.json", "VK_DRIVER_FILES=/nonexistent.json")
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	if err != nil {
		t.Fatalf("%v\n%s", err, lastLines(out, 8))
	}
	if !strings.Contains(out, "open vulkan: backends: open vulkan: vulkan: ") || !strings.Contains(out, "Vulkan") {
		t.Errorf("no clear message from Open(vulkan):\n%s", out)
	}
	for _, name := range cpuNames() {
		if !strings.Contains(out, "device "+name+" ") {
			t.Errorf("%s missing:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "default "+cpuNames()[0]+"\n") || strings.Contains(out, "device vulkan:") {
		t.Errorf("default not %s, or a Vulkan device listed:\n%s", cpuNames()[0], out)
	}
}

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// attachParentProcess is AttachConsole's ATTACH_PARENT_PROCESS.
const attachParentProcess = ^uint32(0)

// attachConsole gives a subcommand the console of the shell that started it: kleinbild.exe
// is built as a GUI program (no console window opens beside the app), and Windows starts
// such a program without standard handles, so `kleinbild devices` in cmd or PowerShell would
// print nothing. Handles the shell set up (output redirected to a file or a pipe) are kept.
func attachConsole() {
	out, _ := windows.GetStdHandle(windows.STD_OUTPUT_HANDLE)
	errh, _ := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
	if out != 0 && out != windows.InvalidHandle && errh != 0 && errh != windows.InvalidHandle {
		return
	}
	attach := windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")
	if r, _, _ := attach.Call(uintptr(attachParentProcess)); r == 0 {
		return // started from Explorer: no console to write to
	}
	con, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	if out == 0 || out == windows.InvalidHandle {
		os.Stdout = con
	}
	if errh == 0 || errh == windows.InvalidHandle {
		os.Stderr = con
	}
}

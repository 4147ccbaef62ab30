// A Go program built with cgo (issue #31, item 4): four goroutines
// allocate 1 MiB slices in a loop, so that the collector runs often and
// scans the goroutines' stacks while the profiler's signals arrive. Go
// requires every signal handler that C code installs to run on the
// alternate signal stack (SA_ONSTACK): one that runs on a goroutine's
// stack leaves a frame there that the collector cannot walk ("unknown
// caller pc"). The C function forces the external linker and cgo's
// runtime, through which the preloaded library sees the Go threads.
//
// usage: go_alloc [ROUNDS]
// Prints a checksum of the work, the same bare and profiled.
package main

// static unsigned long mix(unsigned long x) { return x * 2654435761ul; }
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

var sink [4][]byte

func work(id int, rounds int, out *uint64) {
	var sum uint64
	for i := 0; i < rounds; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = byte(i + j + id)
		}
		sum += uint64(b[(i*4096)%len(b)])
		sink[id] = b
	}
	*out = sum + uint64(C.mix(C.ulong(id)))
}

func main() {
	rounds := 2000
	if len(os.Args) > 1 {
		n, err := strconv.Atoi(os.Args[1])
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "go_alloc: %s: not a count of rounds\n", os.Args[1])
			os.Exit(2)
		}
		rounds = n
	}
	var wg sync.WaitGroup
	var sums [4]uint64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			work(id, rounds, &sums[id])
		}(g)
	}
	wg.Wait()
	fmt.Printf("go_alloc: 4 goroutines, %d MiB each: %x %x %x %x\n",
		rounds, sums[0], sums[1], sums[2], sums[3])
}

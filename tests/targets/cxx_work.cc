/*
 * cxx_work: C++ functions whose mangled names the analyzer must demangle.
 * Two instantiations of one class template and two overloads of a
 * member function share the work 3 : 2 : 1 : 1 (about 1.4 s at scale 1),
 * so the report must tell them apart by their demangled names:
 *   cxxwork::Crunch<int>::run(unsigned long)        3
 *   cxxwork::Crunch<double>::run(unsigned long)     2
 *   cxxwork::Engine::step(int)                      1
 *   cxxwork::Engine::step(double)                   1
 */
#include "work.h"

namespace cxxwork {

template <typename T> struct Crunch {
	static WORK_FN void run(unsigned long iters);
};

template <typename T>
WORK_FN void
Crunch<T>::run(unsigned long iters)
{
	work_spin(iters + sizeof(T) - sizeof(T));
}

class Engine {
public:
	WORK_FN void step(int units);
	WORK_FN void step(double units);
	unsigned long part = 0;
};

WORK_FN void
Engine::step(int units)
{
	work_spin((unsigned long)units * part);
}

WORK_FN void
Engine::step(double units)
{
	work_spin((unsigned long)(units * (double)part));
}

} // namespace cxxwork

int
main(int argc, char **argv)
{
	cxxwork::Engine e;
	e.part = (unsigned long)(work_scale(argc, argv, 1) * WORK_UNIT);
	for (int round = 0; round < 20; round++) {
		cxxwork::Crunch<int>::run(3 * e.part);
		cxxwork::Crunch<double>::run(2 * e.part);
		e.step(1);
		e.step(1.0);
	}
	return 0;
}

"""OR-Tools and HiGHS work in one process, in either import order (docs/decisions.md T7).

Both wheels ship a ``libhighs.so.1``; whichever is loaded first serves the other, so a version
mismatch breaks the second import with an undefined symbol. Each check runs in a fresh
interpreter so the import order is real.
"""

import subprocess
import sys

import pytest

CP_SAT = (
    "from ortools.sat.python import cp_model\n"
    "m = cp_model.CpModel(); x = m.new_int_var(0, 7, 'x'); m.maximize(x)\n"
    "s = cp_model.CpSolver(); assert s.solve(m) == cp_model.OPTIMAL and s.value(x) == 7\n"
)
HIGHS_MIP = (
    "import pyomo.environ as pe\n"
    "m = pe.ConcreteModel(); m.x = pe.Var(bounds=(0, 3.5), domain=pe.Integers)\n"
    "m.o = pe.Objective(expr=m.x, sense=pe.maximize)\n"
    "pe.SolverFactory('appsi_highs').solve(m); assert pe.value(m.x) == 3\n"
    "import highspy; highspy.Highs()\n"
)


@pytest.mark.parametrize("first, second", [(CP_SAT, HIGHS_MIP), (HIGHS_MIP, CP_SAT)],
                         ids=["ortools-first", "highs-first"])
def test_ortools_and_highs_share_a_process(first, second):
    res = subprocess.run([sys.executable, "-c", first + second], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]

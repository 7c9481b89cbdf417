# %% [markdown]
# # Do LSTM gates share their parameters?
#
# The source contrasts W_Q, W_K, W_V with "the gating of an LSTM, whose gates
# share parameters". PyTorch's LSTM stores the four gates (input, forget,
# cell, output) in one tensor, `weight_ih_l0` of shape (4·hidden, input), but
# each gate owns its own block of rows. Test it: change one gate's block and
# see which gates' pre-activations move.

# %%
# Recording what the page cites (numbers): the build reads it; a reader may skip it.
import explainer  # noqa: F401 — first: it pins torch's CPU kernels (explainer/kernels.py)
from explainer.report import Report

report = Report("three_roles.gradients.lstm_gates")

# %% tags=["gates"]
import torch

torch.set_num_threads(1)
d_model, hidden, n_gates = 8, 3, 4                                  # input size as on the page
lstm = torch.nn.LSTM(input_size=d_model, hidden_size=hidden)
x_t = torch.randn(1, d_model)                                       # (1, input)
with torch.no_grad():
    before = (x_t @ lstm.weight_ih_l0.T).reshape(n_gates, hidden)   # (gates, hidden)
    gates_with_own_weights = 0
    for gate in range(n_gates):
        block = slice(gate * hidden, (gate + 1) * hidden)
        lstm.weight_ih_l0[block] += 1.0                             # move this gate's rows only
        after = (x_t @ lstm.weight_ih_l0.T).reshape(n_gates, hidden)
        lstm.weight_ih_l0[block] -= 1.0
        gates_moved = (after - before).abs().amax(dim=1) > 1e-6     # (gates,) which gates moved
        gates_with_own_weights += int(gates_moved[gate] and gates_moved.sum() == 1)
print(f"{gates_with_own_weights} of {n_gates} gates have weights that move that gate alone")

# %%
report.number("lstm_gates", n_gates, "{:.0f}")
report.number("lstm_gates_with_own_weights", gates_with_own_weights, "{:.0f}")

report.save()

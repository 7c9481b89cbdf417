"""Do LSTM gates share their parameters (C27): asserted on the snippet's run (a construction
of PyTorch's LSTM, so the counts are known answers)."""


def test_every_lstm_gate_has_weights_of_its_own(results):
    r = results("three_roles.gradients.lstm_gates")
    # Moving one gate's block of weight_ih_l0 moves that gate's pre-activation and no other's.
    # Gates that shared parameters would move together (count below 4).
    assert r.number("lstm_gates") == 4
    assert r.number("lstm_gates_with_own_weights") == r.number("lstm_gates")

"""Training steps of whole models (the nn/optim issue), against torch.

Each case builds the same model in both libraries (same architecture and PyTorch's default
initialisation, not the same values) and times one optimizer step: forward, loss,
backward, step.
"""

from runner.registry import python_case


def _step(mod, model, opt, x, y, loss_fn):
    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def _digits_cnn(lib, mod, quick):
    nn = mod.nn
    mod.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 2 * 2, 128), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(128, 10))
    opt = mod.optim.Adam(model.parameters(), lr=2e-3)
    x = mod.rand(64, 1, 8, 8)
    y = mod.randint(0, 10, (64,))
    return _step(mod, model, opt, x, y, nn.functional.cross_entropy)


python_case("train_step_digits_cnn", goals={"torch": 1.0}, size="batch 64 of 1x8x8, the demo's CNN, Adam",
            note="per-op overhead dominates")(_digits_cnn)


def _mlp(lib, mod, quick):
    nn = mod.nn
    mod.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = mod.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = mod.rand(128, 784)
    y = mod.randint(0, 10, (128,))
    return _step(mod, model, opt, x, y, nn.functional.cross_entropy)


python_case("train_step_mlp_784_512_512_10", goals={"torch": 1.0}, size="batch 128, SGD momentum",
            note="three GEMMs forward, six backward")(_mlp)


def _lstm(lib, mod, quick):
    nn = mod.nn
    mod.manual_seed(0)
    lstm = nn.LSTM(256, 256, num_layers=2)
    x = mod.rand(8 if quick else 32, 32, 256)

    def step():
        out, _ = lstm(x)
        out.sum().backward()
        lstm.zero_grad()
    return step


python_case("lstm_2x256_seq32_fwd_bwd", goals={"torch": 1.0}, size="2 layers, hidden 256, seq 32, batch 32",
            quick_size="seq 8", note="one input GEMM per layer, then a step loop")(_lstm)


def _transformer(lib, mod, quick):
    nn = mod.nn
    mod.manual_seed(0)
    layer = nn.TransformerEncoderLayer(256, 4, batch_first=True, dropout=0.0)
    x = mod.rand(4 if quick else 16, 128, 256)

    def step():
        layer(x).sum().backward()
        layer.zero_grad()
    return step


python_case("transformer_encoder_d256_fwd_bwd", goals={"torch": 1.0},
            size="d=256, 4 heads, seq 128, batch 16, forward + backward", quick_size="batch 4",
            note="attention as batched GEMMs and softmax")(_transformer)

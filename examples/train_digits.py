"""Trains a small CNN on scikit-learn's 8x8 handwritten digits, with Ember or PyTorch.

The training code is plain PyTorch: the backend module is imported under the name `torch`
(`import ember as torch`), so `--backend torch` runs the very same lines on PyTorch.

    python examples/train_digits.py                   # Ember
    python examples/train_digits.py --backend torch   # PyTorch
    python examples/train_digits.py --backend both    # Ember, then PyTorch; prints both times
    python examples/train_digits.py --quick           # one epoch (the test suite's smoke run)

Writes to the output folder it prints (default build/demo-output/<timestamp>/<backend>/):
the checkpoint (`model.pt`, `torch.save(model.state_dict(), ...)`), `training.png` (loss and
accuracy per epoch) and `metrics.json`; then reloads the checkpoint into a fresh model
and checks that it scores the same on the test set.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

# The backend module, bound in main(): ember or torch. Everything below uses it as `torch`.
torch = None


DEVICE = "cpu"  # where the model and batches live (--device, --load-backend)


def load_digits_split(seed: int, test_fraction: float = 0.2):
    """The 1,797 digits (shipped inside scikit-learn, no download) as float32 images in
    [0, 1] of shape (N, 1, 8, 8), split stratified into train and test sets."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    return train_test_split(images, labels, test_size=test_fraction, stratify=labels,
                            random_state=seed)


def make_model():
    """Conv-BN-ReLU-pool twice, then dropout and two linear layers: 8x8 -> 10 logits."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),                                    # 32 x 4 x 4
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),                                    # 64 x 2 x 2
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(256, 128), nn.ReLU(),
        nn.Dropout(0.3),
        nn.Linear(128, 10),
    )


def evaluate(model, loader):
    """(mean loss, accuracy, predictions) of `model` in eval mode over `loader`."""
    model.eval()
    total_loss, correct, count, preds = 0.0, 0, 0, []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(DEVICE), y.to(DEVICE)
            logits = model(x)
            total_loss += torch.nn.functional.cross_entropy(logits, y, reduction="sum").item()
            pred = logits.argmax(dim=1)
            correct += (pred == y).sum().item()
            count += y.shape[0]
            preds.append(pred.cpu().numpy())
    return total_loss / count, correct / count, np.concatenate(preds)


def train_epoch(model, loader, optimizer, desc):
    """One pass over `loader` with a tqdm bar; returns (mean loss, accuracy) on the batches."""
    from tqdm import tqdm

    model.train()
    total_loss, correct, count = 0.0, 0, 0
    bar = tqdm(loader, desc=desc, unit="batch", leave=True, dynamic_ncols=True,
               file=sys.stdout)
    for x, y in bar:
        x, y = x.to(DEVICE), y.to(DEVICE)
        optimizer.zero_grad()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        n = y.shape[0]
        total_loss += loss.item() * n
        correct += (logits.argmax(dim=1) == y).sum().item()
        count += n
        bar.set_postfix(loss=f"{total_loss / count:.4f}", acc=f"{correct / count:.3f}",
                        refresh=False)
    bar.close()
    return total_loss / count, correct / count


def plot_history(history, path: Path, backend: str):
    """training.png: loss (left) and accuracy (right) per epoch, train and test."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, [h["train_loss"] for h in history], "o-", label="train")
    ax_loss.plot(epochs, [h["test_loss"] for h in history], "o-", label="test")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    ax_acc.plot(epochs, [100 * h["train_acc"] for h in history], "o-", label="train")
    ax_acc.plot(epochs, [100 * h["test_acc"] for h in history], "o-", label="test")
    ax_acc.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"8x8 digits CNN ({backend})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(args, backend: str, out: Path) -> dict:
    """Trains, evaluates, saves, plots and reloads with one backend; returns the metrics."""
    global torch, DEVICE
    torch = importlib.import_module(backend)
    DEVICE = args.device
    if args.load_backend:
        # An out-of-tree device (examples/openreg): ember.backends.load names it.
        DEVICE = torch.backends.load(args.load_backend) if args.device == "cpu" else args.device
    if args.threads:
        torch.set_num_threads(args.threads)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)

    x_train, x_test, y_train, y_test = load_digits_split(args.seed)
    data = torch.utils.data
    train_set = data.TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
    test_set = data.TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test))
    gen = torch.Generator().manual_seed(args.seed)
    train_loader = data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                   generator=gen)
    test_loader = data.DataLoader(test_set, batch_size=256)

    model = make_model().to(DEVICE)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    epochs = 1 if args.quick else args.epochs
    # Cosine decay to zero: the last epochs fine-tune, so the final accuracy is stable.
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    print(f"[{backend} {getattr(torch, '__version__', '?')}] {len(train_set)} train / "
          f"{len(test_set)} test images, {sum(p.numel() for p in model.parameters())} "
          f"parameters, {epochs} epochs, batch {args.batch_size}, "
          f"{torch.get_num_threads()} threads, device {DEVICE}", flush=True)

    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        train_loss, train_acc = train_epoch(model, train_loader, optimizer,
                                            f"epoch {epoch}/{epochs}")
        scheduler.step()
        test_loss, test_acc, _ = evaluate(model, test_loader)
        seconds = time.perf_counter() - t0
        history.append(dict(epoch=epoch, train_loss=train_loss, train_acc=train_acc,
                            test_loss=test_loss, test_acc=test_acc, seconds=seconds))
        print(f"epoch {epoch:2d}: train loss {train_loss:.4f} acc {100 * train_acc:6.2f}% | "
              f"test loss {test_loss:.4f} acc {100 * test_acc:6.2f}% | {seconds:5.2f} s",
              flush=True)
    train_seconds = time.perf_counter() - start
    test_loss, test_acc, preds = evaluate(model, test_loader)
    print(f"test accuracy: {100 * test_acc:.2f}% ({backend}, trained and evaluated in "
          f"{train_seconds:.1f} s)")

    ckpt = out / "model.pt"
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, ckpt)
    plot_history(history, out / "training.png", backend)

    # A fresh model (other random weights) must score exactly the same once loaded.
    reloaded = make_model().to(DEVICE)
    reloaded.load_state_dict(torch.load(ckpt))
    re_loss, re_acc, re_preds = evaluate(reloaded, test_loader)
    same = bool(re_acc == test_acc and np.array_equal(re_preds, preds))
    print(f"reloaded {ckpt.name}: test accuracy {100 * re_acc:.2f}% "
          f"({'same as trained' if same else 'DIFFERS from trained'})")

    fallback = {}
    if DEVICE != "cpu" and hasattr(torch.backends, "fallback_stats"):
        fallback = torch.backends.fallback_stats().get(torch.device(DEVICE).type, {})
        top = sorted(fallback.items(), key=lambda kv: -kv[1])[:8]
        print(f"CPU fallback on {DEVICE}: {sum(fallback.values())} calls of {len(fallback)} operators "
              f"(most: {', '.join(f'{op} {n}' for op, n in top)})")
    metrics = dict(backend=backend, device=DEVICE, fallback_calls=sum(fallback.values()), epochs=epochs, batch_size=args.batch_size, lr=args.lr,
                   threads=torch.get_num_threads(), train_seconds=train_seconds,
                   test_acc=test_acc, test_loss=test_loss, reloaded_test_acc=re_acc,
                   reload_same=same, checkpoint=str(ckpt),
                   plot=str(out / "training.png"), history=history)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(f"wrote {ckpt}, {out / 'training.png'}, {out / 'metrics.json'}", flush=True)
    return metrics


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["ember", "torch", "both"], default="ember",
                   help="library to train with; 'both' runs Ember, then PyTorch, and "
                        "compares their times (default: ember)")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0,
                   help="intra-op threads (default: the backend's own default)")
    p.add_argument("--quick", action="store_true", help="one epoch: a smoke run")
    p.add_argument("--device", default="cpu", help="device to train on (default: cpu)")
    p.add_argument("--load-backend", default=None, metavar="PATH",
                   help="Ember only: load an out-of-tree backend first (e.g. libember_openreg.so) "
                        "and train on its device")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: $EMBER_BUILD_DIR/demo-output/<timestamp>)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    out = args.out
    if out is None:
        build = Path(os.environ.get("EMBER_BUILD_DIR", "build"))
        if not build.is_absolute():
            build = REPO / build
        out = build / "demo-output" / datetime.now().strftime("%Y%m%d-%H%M%S")
    if args.backend != "both":
        print(f"output folder: {out / args.backend}", flush=True)
        metrics = run(args, args.backend, out / args.backend)
        return 0 if metrics["reload_same"] else 1

    # Each backend in its own process, so neither one's threads or allocator affect the other.
    print(f"output folder: {out}", flush=True)
    results = {}
    for backend in ("ember", "torch"):
        cmd = [sys.executable, __file__, "--backend", backend, "--out", str(out),
               "--epochs", str(args.epochs), "--batch-size", str(args.batch_size),
               "--lr", str(args.lr), "--seed", str(args.seed), "--threads", str(args.threads)]
        if args.quick:
            cmd.append("--quick")
        print(flush=True)
        rc = subprocess.call(cmd)
        if rc != 0:
            print(f"{backend} run failed (exit {rc})")
            return rc
        results[backend] = json.loads((out / backend / "metrics.json").read_text())
    e, t = results["ember"], results["torch"]
    print(f"\nsummary ({e['epochs']} epochs, output in {out}):")
    for r in (e, t):
        print(f"  {r['backend']:5s}  {r['train_seconds']:6.2f} s   test accuracy "
              f"{100 * r['test_acc']:.2f}%   reload {'ok' if r['reload_same'] else 'DIFFERS'}")
    print(f"  ember / torch time: {e['train_seconds'] / t['train_seconds']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""ember.optim: optimizers and learning-rate schedulers with torch.optim's API."""
from ember.optim.optimizer import Optimizer  # noqa: F401
from ember.optim.adadelta import Adadelta  # noqa: F401
from ember.optim.adagrad import Adagrad  # noqa: F401
from ember.optim.adam import Adam, AdamW  # noqa: F401
from ember.optim.adamax import Adamax  # noqa: F401
from ember.optim.asgd import ASGD  # noqa: F401
from ember.optim.lbfgs import LBFGS  # noqa: F401
from ember.optim.nadam import NAdam  # noqa: F401
from ember.optim.radam import RAdam  # noqa: F401
from ember.optim.rmsprop import RMSprop  # noqa: F401
from ember.optim.rprop import Rprop  # noqa: F401
from ember.optim.sgd import SGD  # noqa: F401
from ember.optim.sparse_adam import SparseAdam  # noqa: F401
from ember.optim import lr_scheduler, swa_utils  # noqa: F401
from ember.optim.adafactor import Adafactor  # noqa: F401,E402
from ember.optim.muon import Muon  # noqa: F401,E402
from ember.optim._stateless import swap_in_optimizer_params_and_state  # noqa: F401,E402

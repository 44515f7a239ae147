"""ember.nn: neural-network building blocks (torch.nn's modules, Parameter, init, functional)."""
from ember.nn import functional  # noqa: F401
from ember.nn import init  # noqa: F401
from ember.nn import attention, grad  # noqa: F401
from ember.nn.modules import *  # noqa: F401,F403
from ember.nn.modules import Module  # noqa: F401
from ember.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from ember.nn import utils  # noqa: E402,F401
from ember.nn import parallel  # noqa: E402,F401
from ember.nn.parallel import DataParallel  # noqa: E402,F401

"""ember.nn.modules: the layer classes, re-exported by ember.nn."""
from ember.nn.modules.activation import (  # noqa: F401
    CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax,
    Mish, PReLU, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus, Softshrink, Softsign, Tanh, Tanhshrink,
    Threshold,
)
from ember.nn.modules.activation_attention import MultiheadAttention  # noqa: F401
from ember.nn.modules.batchnorm import (  # noqa: F401
    BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
)
from ember.nn.modules.container import (  # noqa: F401
    ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)
from ember.nn.modules.conv import (  # noqa: F401
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
)
from ember.nn.modules.dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d  # noqa: F401
from ember.nn.modules.flatten import Flatten, Unflatten  # noqa: F401
from ember.nn.modules.linear import Bilinear, Identity, Linear  # noqa: F401
from ember.nn.modules.loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, CTCLoss, HuberLoss, KLDivLoss, L1Loss,
    MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss, TripletMarginLoss, SoftMarginLoss, HingeEmbeddingLoss,
    PoissonNLLLoss, GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss,
    TripletMarginWithDistanceLoss,
)
from ember.nn.modules.module import Module  # noqa: F401
from ember.nn.modules.normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm  # noqa: F401
from ember.nn.modules.pooling import (  # noqa: F401
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d,
    AvgPool2d, AvgPool3d, MaxPool1d, MaxPool2d, MaxPool3d, LPPool1d, LPPool2d, LPPool3d,
)
from ember.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from ember.nn.modules.sparse import Embedding, EmbeddingBag  # noqa: F401
from ember.nn.modules.transformer import (  # noqa: F401
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from ember.nn.modules.padding import (  # noqa: F401
    CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,
    ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d,
    ZeroPad3d,
)
from ember.nn.modules.vision import (  # noqa: F401
    ChannelShuffle, CosineSimilarity, Fold, PairwiseDistance, PixelShuffle, PixelUnshuffle, RReLU, Softmax2d,
    Unfold, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d,
)
from ember.nn.modules.lazy import (  # noqa: F401
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
    LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d,
    LazyLinear,
)
from ember.nn.modules.extra import (  # noqa: F401
    AdaptiveLogSoftmaxWithLoss, AdaptiveMaxPool3d, CrossMapLRN2d, FeatureAlphaDropout, FractionalMaxPool2d,
    FractionalMaxPool3d, LinearCrossEntropyLoss, LinearCrossEntropyOptions, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d,
    NLLLoss2d, SyncBatchNorm,
)

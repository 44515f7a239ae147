"""ember.utils.data: datasets, samplers and the DataLoader, with torch.utils.data's API."""
from ember.utils.data.dataset import (  # noqa: F401
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
    random_split,
)
from ember.utils.data.sampler import (  # noqa: F401
    BatchSampler, DistributedSampler, RandomSampler, Sampler, SequentialSampler,
    SubsetRandomSampler, WeightedRandomSampler,
)
from ember.utils.data.collate import default_collate, default_convert  # noqa: F401
from ember.utils.data.dataloader import DataLoader  # noqa: F401
from ember.utils.data._worker import WorkerInfo, get_worker_info  # noqa: F401
from ember.utils.data import distributed  # noqa: F401,E402

synthetic placeholder half map
